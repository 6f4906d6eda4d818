#include "evolve/mutators/secret_mask.hpp"

#include <doctest/doctest.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace secret_mask_test {

using namespace tv;

TEST_CASE("secret_mask: every occurrence of a key is masked, short keys are no secrets") {
  CHECK(mask_secret("Bearer sk-abc123 and sk-abc123!", "sk-abc123") == "Bearer *** and ***!");
  CHECK(mask_secret("sk-abc123sk-abc123", "sk-abc123") == "******");
  CHECK(mask_secret("nothing here", "sk-abc123") == "nothing here");
  CHECK(mask_secret("a key", "") == "a key");
  CHECK(mask_secret("abc abc", "abc") == "abc abc");
}

TEST_CASE("secret_mask: the user:password@ of a URL is masked") {
  CHECK(url_without_userinfo("http://u:p@h:80/v1") == "http://***@h:80/v1");
  CHECK(url_without_userinfo("https://user@h/v1") == "https://***@h/v1");
  CHECK(url_without_userinfo("http://u:p/w@rd@h/v1") == "http://***@h/v1");
  CHECK(url_without_userinfo("openai:http://u:p@h/v1") == "openai:http://***@h/v1");
  CHECK(url_without_userinfo("http://h:80/v1") == "http://h:80/v1");
  CHECK(url_without_userinfo("no-scheme@h") == "***@h");
}

} // namespace secret_mask_test
