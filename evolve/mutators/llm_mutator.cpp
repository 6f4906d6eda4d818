#include "evolve/mutators/llm_mutator.hpp"

#include "evolve/mutators/token_count.hpp"
#include "ir/error.hpp"

#include <atomic>
#include <exception>
#include <fmt/format.h>
#include <mutex>
#include <thread>

namespace tv {

namespace {

template <class T> T get(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key))
    throw InputError(fmt::format("LLM settings: field '{}' missing", key));
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw InputError(fmt::format("LLM settings: field '{}' has the wrong type", key));
  }
}

const char* op_for(PromptKind k) {
  return k == PromptKind::full ? "llm-rewrite" : "llm-diff";
}

} // namespace

nlohmann::json LlmSettings::to_json() const {
  return {{"url", url},
          {"models", models.to_json()},
          {"api_key_env", api_key_env},
          {"temperature", temperature},
          {"max_reply_tokens", max_reply_tokens},
          {"prompts_dir", prompts_dir},
          {"prompt_mode", prompt_mode},
          {"max_requests", limits.max_requests},
          {"max_tokens", limits.max_tokens},
          {"max_failures_in_a_row", limits.max_failures_in_a_row},
          {"retries", retry.retries},
          {"backoff_s", retry.backoff_s},
          {"max_wait_s", retry.max_wait_s},
          {"connect_timeout_s", http.connect_timeout_s},
          {"read_timeout_s", http.read_timeout_s},
          {"max_response_bytes", http.max_response_bytes},
          {"ca_cert_file", http.ca_cert_file}};
}

LlmSettings LlmSettings::from_json(const nlohmann::json& j) {
  LlmSettings s;
  s.url = get<std::string>(j, "url");
  s.models = ModelEnsemble::from_json(get<nlohmann::json>(j, "models"));
  s.api_key_env = get<std::string>(j, "api_key_env");
  s.temperature = get<double>(j, "temperature");
  s.max_reply_tokens = get<long long>(j, "max_reply_tokens");
  s.prompts_dir = get<std::string>(j, "prompts_dir");
  s.prompt_mode = get<std::string>(j, "prompt_mode");
  s.limits.max_requests = get<long long>(j, "max_requests");
  s.limits.max_tokens = get<long long>(j, "max_tokens");
  s.limits.max_failures_in_a_row = get<long long>(j, "max_failures_in_a_row");
  s.retry.retries = get<int>(j, "retries");
  s.retry.backoff_s = get<double>(j, "backoff_s");
  s.retry.max_wait_s = get<double>(j, "max_wait_s");
  s.http.connect_timeout_s = get<double>(j, "connect_timeout_s");
  s.http.read_timeout_s = get<double>(j, "read_timeout_s");
  s.http.max_response_bytes = get<std::size_t>(j, "max_response_bytes");
  s.http.ca_cert_file = get<std::string>(j, "ca_cert_file");
  return s;
}

struct LlmMutator::Job {
  std::uint64_t index = 0;
  std::string model;
  PromptKind kind = PromptKind::diff;
  std::uint64_t seed = 0;
  std::string body, digest;
  std::vector<ChatAttempt> attempts; ///< recorded ones first, then new ones
};

LlmMutator::LlmMutator(LlmSettings settings, PromptTarget target, LlmRuntime runtime)
    : settings_(std::move(settings)), target_(std::move(target)), runtime_(std::move(runtime)),
      prompts_(LlmPrompts::load(settings_.prompts_dir)), endpoint_(Endpoint::parse(settings_.url)),
      budget_(settings_.limits) {
  if (settings_.models.models().empty()) throw InputError("the LLM mutator needs a model");
  if (settings_.prompt_mode != "auto" && settings_.prompt_mode != "diff" &&
      settings_.prompt_mode != "full")
    throw InputError(
        fmt::format("prompt mode '{}': expected auto, diff or full", settings_.prompt_mode));
  if (runtime_.concurrency < 1) throw InputError("--llm-concurrency must be at least 1");
  if (settings_.retry.retries < 0) throw InputError("--llm-retries must not be negative");
  if (!(settings_.http.read_timeout_s > 0) || !(settings_.http.connect_timeout_s > 0))
    throw InputError("LLM timeouts must be positive");
  if (!runtime_.replay_path.empty())
    recorded_ = ExchangeRecording::load(runtime_.replay_path, false);
  else if (runtime_.resume && !runtime_.record_path.empty())
    recorded_ = ExchangeRecording::load(runtime_.record_path, true, &recorded_bytes_);
}

LlmMutator::~LlmMutator() = default;

std::string LlmMutator::name() const {
  return "llm (" + settings_.models.describe() + ")";
}

std::vector<std::string> LlmMutator::operators() const {
  return {"llm-diff", "llm-rewrite"};
}

nlohmann::json LlmMutator::settings() const {
  nlohmann::json j = settings_.to_json();
  j["kind"] = "llm";
  j["prompts_digest"] = prompts_.digest();
  return j;
}

nlohmann::json LlmMutator::state() const {
  return {
      {"next_request", next_request_}, {"budget", budget_.to_json()}, {"stats", stats_.to_json()}};
}

void LlmMutator::restore(const nlohmann::json& st) {
  if (!st.is_object() || !st.contains("next_request") || !st["next_request"].is_number_unsigned())
    throw InputError("LLM mutator state: field 'next_request' missing");
  next_request_ = st["next_request"].get<std::uint64_t>();
  if (!st.contains("budget") || !st.contains("stats"))
    throw InputError("LLM mutator state: fields 'budget' and 'stats' are needed");
  budget_.restore(st["budget"]);
  stats_ = LlmStats::from_json(st["stats"]);
}

PromptKind LlmMutator::prompt_kind(const MutationRequest& r, const std::string& mode) {
  if (mode == "full") return PromptKind::full;
  if (mode == "diff") return PromptKind::diff;
  int failed = 0;
  for (auto it = r.previous_attempts.rbegin(); it != r.previous_attempts.rend(); ++it) {
    if (it->stage != "diff_failed") break;
    ++failed;
  }
  return failed >= 2 ? PromptKind::full : PromptKind::diff;
}

std::string LlmMutator::request_body(const MutationRequest& request, const std::string& model,
                                     PromptKind kind) const {
  nlohmann::json messages = nlohmann::json::array();
  for (const ChatMessage& m : prompts_.messages(request, target_, kind))
    messages.push_back({{"role", m.role}, {"content", m.content}});
  nlohmann::json body{{"model", model},
                      {"messages", messages},
                      {"temperature", settings_.temperature},
                      {"seed", request.seed & 0x7fffffffULL},
                      {"stream", false}};
  if (settings_.max_reply_tokens > 0) body["max_tokens"] = settings_.max_reply_tokens;
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

MutationReply LlmMutator::propose(const MutationRequest& request) {
  return propose_all({request}).front();
}

void LlmMutator::open_writer() {
  if (writer_ || runtime_.record_path.empty()) return;
  writer_ =
      std::make_unique<ExchangeWriter>(runtime_.record_path, runtime_.resume ? recorded_bytes_ : 0);
}

void LlmMutator::run_jobs(std::vector<Job>& jobs, const std::vector<std::size_t>& todo) {
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto worker = [&] {
    try {
      LlmClient client(endpoint_, runtime_.api_key, settings_.http);
      for (std::size_t k = next++; k < todo.size(); k = next++) {
        Job& j = jobs[todo[k]];
        const int first = int(j.attempts.size());
        ChatOutcome out =
            send_with_retries(client, j.body, settings_.retry, j.seed ^ 0x6261636b6f6666ULL, first,
                              [&](const ChatAttempt& a) {
                                if (writer_)
                                  writer_->append({j.index, j.model, j.digest, j.body, a});
                                if (!a.ok() && runtime_.on_failure) runtime_.on_failure(a);
                              });
        for (auto& a : out.attempts)
          j.attempts.push_back(std::move(a));
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
      next = todo.size(); // stop handing out work
    }
  };
  const std::size_t threads = std::min<std::size_t>(std::size_t(runtime_.concurrency), todo.size());
  if (threads <= 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (std::size_t t = 0; t < threads; ++t)
      pool.emplace_back(worker);
    for (auto& t : pool)
      t.join();
  }
  if (error) std::rethrow_exception(error);
}

std::vector<MutationReply> LlmMutator::propose_all(const std::vector<MutationRequest>& requests) {
  const bool replay = !runtime_.replay_path.empty();
  std::vector<Job> jobs(requests.size());
  std::vector<std::size_t> todo; // jobs that need the server
  for (std::size_t i = 0; i < requests.size(); ++i) {
    Job& j = jobs[i];
    j.index = next_request_ + i;
    j.seed = requests[i].seed;
    j.model = settings_.models.pick(requests[i].seed);
    j.kind = prompt_kind(requests[i], settings_.prompt_mode);
    j.body = request_body(requests[i], j.model, j.kind);
    j.digest = body_digest(j.body);
    const auto& rec = recorded_.of(j.index);
    if (!rec.empty() && rec.front().digest != j.digest)
      throw InputError(fmt::format(
          "{}: request {} differs from the recorded one (digest {} where {} was recorded): the "
          "run's settings, prompts or problem are not those of the recording",
          replay ? runtime_.replay_path : runtime_.record_path, j.index, j.digest,
          rec.front().digest));
    if (replay && !recorded_.answered(j.index))
      throw InputError(fmt::format("{}: the recording has no answer for request {}: the replayed "
                                   "run asks for more than the recorded one received",
                                   runtime_.replay_path, j.index));
    for (const auto& r : rec)
      j.attempts.push_back(r.attempt);
    if (recorded_.answered(j.index)) {
      ++from_recording_;
      continue;
    }
    todo.push_back(i);
  }
  open_writer();
  if (replay && writer_) // the new run directory gets its own copy of what it consumed
    for (const Job& j : jobs)
      for (const ChatAttempt& a : j.attempts)
        writer_->append({j.index, j.model, j.digest, j.body, a});
  if (!todo.empty()) run_jobs(jobs, todo);

  std::vector<MutationReply> out;
  out.reserve(jobs.size());
  for (const Job& j : jobs) {
    ChatOutcome o;
    o.attempts = j.attempts;
    stats_.add(j.model, o);
    MutationReply r;
    r.op = op_for(j.kind);
    r.model = j.model;
    r.attempts = int(o.attempts.size());
    for (const auto& a : o.attempts) {
      r.prompt_tokens = add_tokens(r.prompt_tokens, a.prompt_tokens);
      r.completion_tokens = add_tokens(r.completion_tokens, a.completion_tokens);
      r.latency_s += a.latency_s;
    }
    if (o.ok()) {
      r.text = o.last().content;
    } else {
      r.ok = false;
      r.error =
          o.attempts.empty()
              ? "no attempt was made"
              : fmt::format("{} after {} attempt{}: {}", failure_kind_name(o.last().failure),
                            o.attempts.size(), o.attempts.size() == 1 ? "" : "s", o.last().error);
    }
    budget_.charge(r.ok, add_tokens(r.prompt_tokens, r.completion_tokens), r.error);
    out.push_back(std::move(r));
  }
  next_request_ += requests.size();
  return out;
}

} // namespace tv
