// https to an LLM server: a TLS server on 127.0.0.1 with a certificate made here (OpenSSL),
// trusted through --llm-ca-cert's option and refused without it.
#include "evolve/mutators/llm_client.hpp"
#include "tests/support/fake_openai_server.hpp"
#include "tests/support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <httplib.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <thread>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace llm_tls_test {

using namespace tv;

namespace {

/// A self-signed certificate for IP 127.0.0.1 and its key.
struct SelfSigned {
  EVP_PKEY* key = nullptr;
  X509* cert = nullptr;
  SelfSigned() {
    key = EVP_EC_gen("P-256");
    REQUIRE(key);
    cert = X509_new();
    X509_set_version(cert, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert), -60);
    X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
    X509_set_pubkey(cert, key);
    X509_NAME* name = X509_get_subject_name(cert);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>("127.0.0.1"), -1, -1, 0);
    X509_set_issuer_name(cert, name);
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
    for (auto [nid, value] : {std::pair{NID_subject_alt_name, "IP:127.0.0.1"},
                              std::pair{NID_basic_constraints, "critical,CA:TRUE"}}) {
      X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
      REQUIRE(ext);
      X509_add_ext(cert, ext, -1);
      X509_EXTENSION_free(ext);
    }
    REQUIRE(X509_sign(cert, key, EVP_sha256()) > 0);
  }
  ~SelfSigned() {
    X509_free(cert);
    EVP_PKEY_free(key);
  }
  void write_pem(const std::string& path) const {
    FILE* f = std::fopen(path.c_str(), "w");
    REQUIRE(f);
    PEM_write_X509(f, cert);
    std::fclose(f);
  }
};

} // namespace

TEST_CASE("llm_tls: https works with a trusted certificate and is refused with an unknown one") {
  SelfSigned pki;
  const test::ScratchDir scratch("tilevolve_llm_tls_test");
  const std::string ca = scratch.at("ca.pem");
  pki.write_pem(ca);

  httplib::SSLServer server(pki.cert, pki.key);
  REQUIRE(server.is_valid());
  server.Post("/v1/chat/completions", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(test::FakeOpenAiServer::completion("over TLS", 5, 2, true), "application/json");
  });
  const int port = server.bind_to_any_port("127.0.0.1");
  REQUIRE(port > 0);
  std::thread t([&] { server.listen_after_bind(); });
  for (int i = 0; i < 500 && !server.is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));

  const Endpoint e = Endpoint::parse("https://127.0.0.1:" + std::to_string(port) + "/v1");
  { // the clients close their connections before the server stops
    HttpOptions trusted;
    trusted.read_timeout_s = 5;
    trusted.ca_cert_file = ca;
    LlmClient ok(e, "k", trusted);
    const ChatAttempt a = ok.post("{}");
    CHECK(a.ok());
    CHECK(a.content == "over TLS");

    HttpOptions system_store;
    system_store.read_timeout_s = 5;
    LlmClient refused(e, "k", system_store);
    const ChatAttempt b = refused.post("{}");
    CHECK(b.failure == FailureKind::client_error); // not retried: it will not verify next time
    CHECK(b.error == "TLS: the server certificate did not verify");
  }
  server.stop();
  t.join();
}

} // namespace llm_tls_test
