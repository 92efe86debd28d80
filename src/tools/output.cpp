// strata's checked standard output (see output.hpp).
#include "output.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>
#include <sstream>
#include <streambuf>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace strata::tools {

namespace {

/// write(2) on a file descriptor through a fixed buffer; remembers the errno
/// of the first failure and discards everything after it.
class DescriptorBuffer : public std::streambuf {
 public:
  explicit DescriptorBuffer(int fd) : fd_(fd), buffer_(std::size_t(1) << 16) { reset(); }
  int error_number() const { return error_; }
  void fail(int error_number) {
    if (error_ == 0) error_ = error_number;
  }
  void discard() { reset(); }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  void reset() { setp(buffer_.data(), buffer_.data() + buffer_.size()); }
  bool drain() {
    const char* p = pbase();
    std::size_t left = static_cast<std::size_t>(pptr() - pbase());
    while (error_ == 0 && left != 0) {
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        fail(n < 0 ? errno : EIO);
        break;
      }
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    reset();
    return error_ == 0;
  }

  int fd_;
  std::vector<char> buffer_;
  int error_ = 0;
};

DescriptorBuffer& stdout_buffer() {
  static DescriptorBuffer buffer(1);
  return buffer;
}

std::streambuf* original_cout_buffer = nullptr;

}  // namespace

void prepare_standard_streams() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int opened = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    if (opened >= 0 && opened != fd) {  // fd 0..2 is the lowest free: it is `fd`
      ::dup2(opened, fd);
      ::close(opened);
    }
    if (fd == 1) stdout_buffer().fail(EBADF);
  }
  std::signal(SIGXFSZ, SIG_IGN);
}

void capture_stdout() {
  std::cout.flush();
  if (original_cout_buffer == nullptr) original_cout_buffer = std::cout.rdbuf(&stdout_buffer());
}

void discard_output() {
  if (original_cout_buffer == nullptr) return;
  stdout_buffer().discard();
  std::cout.rdbuf(original_cout_buffer);
  original_cout_buffer = nullptr;
}

namespace {
std::ostringstream& diagnostics_stream() {
  static std::ostringstream text;
  return text;
}
}  // namespace

std::ostream& diagnostics() { return diagnostics_stream(); }

std::string take_diagnostics() {
  std::string text = diagnostics_stream().str();
  diagnostics_stream().str(std::string());
  return text;
}

int output_error_number() { return stdout_buffer().error_number(); }

void finish_output() {
  if (original_cout_buffer != nullptr) {
    std::cout.flush();
    std::cout.rdbuf(original_cout_buffer);
    original_cout_buffer = nullptr;
  }
  if (output_error_number() != 0) throw OutputError{output_error_number()};
}

std::string output_error_message(int error_number) {
  std::string fix;
  switch (error_number) {
    case ENOSPC: fix = "free space where stdout goes, or redirect it to another file system"; break;
    case EFBIG:
      fix = "raise the file size limit (ulimit -f) or redirect stdout where the output fits";
      break;
    case EPIPE:
      fix = "the program reading the pipe closed it early: let it read the whole output";
      break;
    case EBADF: fix = "run strata with its standard output open (redirected to a file or a pipe)"; break;
    default: fix = "check the device or file system stdout is redirected to"; break;
  }
  return std::string("output error: stdout: ") + std::strerror(error_number) +
         " (the output is incomplete). Fix: " + fix + ".";
}

}  // namespace strata::tools
