// Token-level distillation against the PyTorch twin (tests/data/distill/, written by
// tools/pytorch/make_distill_fixture.py): a student, two teachers of other architectures and a padded
// batch; the twin's loss, objective (label smoothing 0.1, soft-target weight 0.6 on the teachers' mean
// distribution) and gradient for every parameter. attnseq's forward_backward, fed the teachers'
// distributions through probs_out, must give the same numbers; and the Trainer, given the teachers,
// must step against that gradient.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "model/checkpoint.hpp"
#include "model/json.hpp"
#include "test_util.hpp"
#include "train/backprop.hpp"
#include "train/trainer.hpp"

using namespace attnseq;

namespace {

struct Fixture {
  json::Value doc;
  std::vector<std::vector<std::int32_t>> src, tgt;
};

Fixture load_fixture() {
  Fixture f;
  const auto bytes = read_file_bytes(test::data_path("distill/distill.json"));
  f.doc = json::parse(std::string(bytes.begin(), bytes.end()));
  for (const auto& pair : f.doc.find("pairs")->array) {
    std::vector<std::int32_t> s, t;
    for (const auto& x : pair.array[0].array) s.push_back(std::int32_t(x.number));
    for (const auto& x : pair.array[1].array) t.push_back(std::int32_t(x.number));
    f.src.push_back(s);
    f.tgt.push_back(t);
  }
  return f;
}

Model load(const char* name) {
  return load_checkpoint_file(test::data_path(std::string("distill/") + name + ".safetensors"));
}

}  // namespace

TEST_CASE("token-level distillation: loss, objective and gradient equal the PyTorch twin's") {
  const Fixture fx = load_fixture();
  const Model student = load("student"), t1 = load("teacher1"), t2 = load("teacher2");
  const auto batch = train::make_batch(fx.src, fx.tgt, student.config());
  REQUIRE(batch.tokens == int(fx.doc.find("tokens")->number));
  const std::size_t n = std::size_t(batch.Tt) * batch.B * student.config().tgt_vocab;
  // The teachers' mean distribution, as the Trainer forms it.
  std::vector<float> soft(n, 0.f), probs(n, 0.f);
  for (const Model* t : {&t1, &t2}) {
    train::ForwardOptions to;
    to.probs_out = probs.data();
    train::forward_backward(*t, batch, nullptr, to);
    for (std::size_t i = 0; i < n; ++i) soft[i] += probs[i] * 0.5f;
  }
  train::ForwardOptions fo;
  fo.label_smoothing = float(fx.doc.find("label_smoothing")->number);
  fo.soft_weight = float(fx.doc.find("distill_weight")->number);
  fo.soft_targets = soft.data();
  std::vector<float> grad(student.params().data.size(), 0.f);
  const auto st = train::forward_backward(student, batch, grad.data(), fo);
  CHECK(st.loss_sum == doctest::Approx(fx.doc.find("loss_sum")->number).epsilon(1e-5));
  CHECK(st.objective_sum == doctest::Approx(fx.doc.find("objective_sum")->number).epsilon(1e-5));
  // The twin's gradient is of the objective's sum; attnseq's of its mean per token.
  const auto& want = *fx.doc.find("grad");
  double worst = 0, scale = 0;
  std::size_t checked = 0;
  for (std::size_t k = 0; k < student.params().specs.size(); ++k) {
    const auto& spec = student.params().specs[k];
    const json::Value* w = want.find(spec.name);
    REQUIRE_MESSAGE(w, "the fixture has no gradient for " << spec.name);
    REQUIRE(w->array.size() == std::size_t(spec.numel()));
    for (std::size_t i = 0; i < w->array.size(); ++i) {
      const double a = double(grad[student.params().offsets[k] + i]) * batch.tokens, b = w->array[i].number;
      worst = std::max(worst, std::abs(a - b));
      scale = std::max(scale, std::abs(b));
      ++checked;
    }
  }
  CHECK(checked == student.params().data.size());
  INFO("largest difference ", worst, " against a largest gradient of ", scale);
  CHECK(worst <= 1e-5 * scale);
}

TEST_CASE("the Trainer distils from its teachers: its first Adam step goes against the twin's gradient") {
  // Adam's first step moves each weight by lr * g / (|g| + eps): minus the gradient's sign wherever it
  // is not tiny. Without the teachers the signs differ in places (checked): the step did use them.
  const Fixture fx = load_fixture();
  auto t1 = std::make_shared<const Model>(load("teacher1")), t2 = std::make_shared<const Model>(load("teacher2"));
  const auto& want = *fx.doc.find("grad");
#if defined(__EMSCRIPTEN__)
  const int thread_counts[] = {1};  // the module is single-threaded
#else
  const int thread_counts[] = {1, 2};
#endif
  for (const int threads : thread_counts) {
    CAPTURE(threads);
    for (const bool with_teachers : {true, false}) {
      CAPTURE(with_teachers);
      Model student = load("student");
      const std::vector<float> before = student.params().data;
      train::TrainOptions o;
      o.batch_size = 3;
      o.lr = 1e-3f;
      o.warmup = 0;
      o.clip = 0.f;
      o.threads = threads;
      o.label_smoothing = float(fx.doc.find("label_smoothing")->number);
      if (with_teachers) o.teachers = {t1, t2}, o.distill_weight = float(fx.doc.find("distill_weight")->number);
      train::Trainer tr(student, {}, o);
      tr.step(fx.src, fx.tgt);
      int agree = 0, disagree = 0;
      for (std::size_t k = 0; k < student.params().specs.size(); ++k) {
        const auto& w = want.find(student.params().specs[k].name)->array;
        for (std::size_t i = 0; i < w.size(); ++i) {
          if (std::abs(w[i].number) < 1e-3) continue;
          const std::size_t at = student.params().offsets[k] + i;
          const double moved = double(student.params().data[at]) - before[at];
          ((moved < 0) == (w[i].number > 0) ? agree : disagree)++;
        }
      }
      if (with_teachers) {
        CHECK(disagree == 0);
        CHECK(agree > 1000);
      } else {
        CHECK(disagree > 10);
      }
    }
  }
}

TEST_CASE("the Trainer refuses teachers that cannot teach, by name") {
  auto t1 = std::make_shared<const Model>(load("teacher1"));
  Model student = load("student");
  train::TrainOptions o;
  o.teachers = {t1};
  CHECK_THROWS_WITH(train::Trainer(student, {}, o), doctest::Contains("teach nothing"));
  o.distill_weight = 1.5f;
  CHECK_THROWS_WITH(train::Trainer(student, {}, o), doctest::Contains("distill_weight is 1.5"));
  o.distill_weight = 0.5f;
  o.teachers.clear();
  CHECK_THROWS_WITH(train::Trainer(student, {}, o), doctest::Contains("needs teachers"));
  // Other vocabularies: a parity model of other sizes.
  o.teachers = {
      std::make_shared<const Model>(load_checkpoint_file(test::data_path("parity/gru_luong_dot.safetensors")))};
  CHECK_NOTHROW(train::Trainer(student, {}, o));  // 13 and 11 tokens, the same default lists
  Model q = load("teacher1");
  q.quantize();
  o.teachers = {std::make_shared<const Model>(std::move(q))};
  CHECK_THROWS_WITH(train::Trainer(student, {}, o), doctest::Contains("teacher 1 holds int8 weights"));
  ModelConfig c = student.config();
  c.tgt_tokens[5] = "other";
  Model other(c);
  o.teachers = {std::make_shared<const Model>(std::move(other))};
  CHECK_THROWS_WITH(train::Trainer(student, {}, o), doctest::Contains("teacher 1's target token 5 is 'other'"));
}
