// The only Embind file: exposes the engine's model, encode and step to JavaScript.
// Every bound call catches every exception and returns a plain status object
// ({ok: true, ...} or {ok: false, code, message}), the code from the error's kind (src/core/errors.hpp,
// error_code); no C++ exception ever reaches JS (escaped exceptions leak wasm stack, see
// docs/toolchain.md). Arrays go out as copies. Handles share ownership (shared_ptr), so JS may delete
// them in any order. One call is a plain wasm export instead, the decoder step (attnseq_decoder_step):
// it returns a status int and leaves its numbers in the decoder's step record.
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>
#include <emscripten/heap.h>
#include <emscripten/stack.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "decode/decode.hpp"
#include "decode/options.hpp"
#include "decode/step_record.hpp"
#include "kernels/dispatch.hpp"
#include "kernels/kernels.hpp"
#include "model/checkpoint.hpp"
#include "model/vocab.hpp"
#include "model/words.hpp"
#include "train/evaluate.hpp"
#include "train/settings.hpp"
#include "train/tasks.hpp"
#include "train/trainer.hpp"

using emscripten::val;
using namespace attnseq;

namespace {

val ok() {
  val r = val::object();
  r.set("ok", true);
  return r;
}

val error(const char* code, const std::string& message) {
  val r = val::object();
  r.set("ok", false);
  r.set("code", std::string(code));
  r.set("message", message);
  return r;
}

struct Failure {
  const char* code;
  std::string message;
};

// Every code a failure can carry: each kind's, and the two of current_failure's other branches.
val status_codes() {
  val out = val::array();
  int i = 0;
  for (ErrorKind k : kErrorKinds) out.set(i++, std::string(error_code(k)));
  out.set(i++, std::string("OUT_OF_MEMORY"));
  out.set(i++, std::string("INTERNAL"));
  return out;
}

// The exception being handled as a code and a message. Call it only inside a catch block; every
// catch site in this file goes through it.
Failure current_failure() {
  try {
    throw;
  } catch (const std::invalid_argument& e) {
    return {error_code(kind_of(e)), e.what()};
  } catch (const std::bad_alloc&) {
    return {"OUT_OF_MEMORY", "out of memory"};
  } catch (const std::exception& e) {
    return {"INTERNAL", e.what()};
  } catch (...) {
    return {"INTERNAL", "unknown error"};
  }
}

// Runs f, turning every exception into a status.
template <class F>
val guarded(F&& f) {
  try {
    return f();
  } catch (...) {
    const Failure x = current_failure();
    return error(x.code, x.message);
  }
}

template <class T>
val copy_array(const T* p, std::size_t n) {  // a JS-owned copy: views die when memory grows
  return val(emscripten::typed_memory_view(n, p)).call<val>("slice");
}

// Sets each named vector on `o` as a JS-owned copy: set_arrays(o, "ids", ids, "score", score, ...).
inline void set_arrays(val&) {}
template <class T, class... Rest>
void set_arrays(val& o, const char* name, const std::vector<T>& v, const Rest&... rest) {
  o.set(name, copy_array(v.data(), v.size()));
  set_arrays(o, rest...);
}

template <class T>
std::vector<T> from_js_array(const val& a, const char* what) {
  if (a.isNull() || a.isUndefined()) throw std::invalid_argument(std::string(what) + " is missing");
  return emscripten::convertJSArrayToNumberVector<T>(a);
}

struct ModelBox {
  Model model;
  Vocab src, tgt;
  // The encoder's working buffers, shared by every encode of this model (one thread): an encode
  // then allocates only what it returns, and an encoded source holds only its results.
  mutable Encoded scratch;
};

class ModelHandle {
 public:
  // quantize: hold the model's matrices as int8 (Model::quantize), as `attnseq quantize` would write them.
  val load(const val& bytes, bool quantize) {
    return guarded([&] {
      // Whatever is wrong with the bytes, the vocabularies included (a token listed twice), is the file's.
      box_ = reraise_input_errors_as(ErrorKind::BadCheckpoint, [&] {
        const auto b = from_js_array<std::uint8_t>(bytes, "checkpoint bytes");
        Model m = load_checkpoint(b.data(), b.size());
        if (quantize) m.quantize();
        const Vocab s = Vocab::source(m.config()), t = Vocab::target(m.config());
        return std::make_shared<ModelBox>(ModelBox{std::move(m), s, t, {}});
      });
      return ok();
    });
  }
  bool loaded() const { return bool(box_); }
  const std::shared_ptr<ModelBox>& box() const { return box_; }

  val config() const {
    return guarded([&] {
      const auto& c = need().model.config();
      val r = ok();
      const std::pair<const char*, std::string> strings[] = {
          {"cell", to_string(c.cell)},
          {"style", to_string(c.style)},
          {"score", to_string(c.score)},
          // `tokenizer` names both sides when they agree and is "mixed" otherwise (as in the checkpoint).
          {"tokenizer", c.src_tokenizer == c.tgt_tokenizer ? to_string(c.src_tokenizer) : "mixed"},
          {"srcTokenizer", to_string(c.src_tokenizer)},
          {"tgtTokenizer", to_string(c.tgt_tokenizer)},
          {"srcCase", to_string(c.src_case)},
          {"srcHangul", c.src_jamo ? "jamo" : "syllables"},
          {"quantization", need().model.quantized() ? "int8" : "none"}};
      const std::pair<const char*, bool> flags[] = {{"inputFeeding", c.input_feeding},
                                                    {"bidirectional", c.bidirectional},
                                                    {"bridge", c.bridge},
                                                    {"tieEmbeddings", c.tie_embeddings},
                                                    {"attentionQueryBias", c.attn_query_bias}};
      const std::pair<const char*, int> sizes[] = {{"layers", c.layers},
                                                   {"srcVocabSize", c.src_vocab},
                                                   {"tgtVocabSize", c.tgt_vocab},
                                                   {"embedding", c.src_emb},
                                                   {"srcEmbedding", c.src_emb},
                                                   {"tgtEmbedding", c.tgt_emb},
                                                   {"encoderHidden", c.enc_hidden},
                                                   {"encoderOutput", c.enc_out()},
                                                   {"hidden", c.dec_hidden},
                                                   {"attentionSize", c.attn_dim},
                                                   {"pad", c.pad},
                                                   {"bos", c.bos},
                                                   {"eos", c.eos},
                                                   {"unk", c.unk}};
      for (const auto& [k, v] : strings) r.set(k, v);
      for (const auto& [k, v] : flags) r.set(k, v);
      for (const auto& [k, v] : sizes) r.set(k, v);
      val meta = val::object();
      for (const auto& kv : c.extra) meta.set(kv.first, kv.second);
      r.set("metadata", meta);
      val sv = val::array(), tv = val::array();
      for (const auto& s : c.src_tokens) sv.call<void>("push", s);
      for (const auto& s : c.tgt_tokens) tv.call<void>("push", s);
      r.set("srcVocab", sv);
      r.set("tgtVocab", tv);
      r.set("parameters", double(need().model.params().data.size()));
      return r;
    });
  }

  // Text -> {ids, pieces} with the source (side 0) or target (side 1) tokenizer.
  val tokenize(const std::string& text, int side) const {
    return guarded([&] {
      const Vocab& v = side ? need().tgt : need().src;
      const auto pieces = v.pieces(text);
      std::vector<std::int32_t> ids;
      val ps = val::array();
      for (const auto& p : pieces) ids.push_back(v.lookup(p)), ps.call<void>("push", p);
      val r = ok();
      r.set("ids", copy_array(ids.data(), ids.size()));
      r.set("pieces", ps);
      return r;
    });
  }

  // ids -> strings (side 0 source, 1 target) and the joined text of a target sequence.
  val detokenize(const val& ids_js, int side) const {
    return guarded([&] {
      const Vocab& v = side ? need().tgt : need().src;
      const auto ids = from_js_array<std::int32_t>(ids_js, "ids");
      val toks = val::array();
      for (auto id : ids) toks.call<void>("push", v.token(id));
      val r = ok();
      r.set("tokens", toks);
      r.set("text", v.decode(ids.data(), ids.size()));
      return r;
    });
  }

  // The word-level view of a translation (src/model/words.hpp): each side's words and their spans of
  // tokens ([first, count] pairs, flat), and the attention between words when `attention` (the
  // rows x cols piece-level weights of tgt_ids against src_ids) is given (else null).
  val words(const val& src_js, const val& tgt_js, const val& att_js) const {
    return guarded([&] {
      const auto src = from_js_array<std::int32_t>(src_js, "source ids");
      const auto tgt = from_js_array<std::int32_t>(tgt_js, "target ids");
      const auto sw = group_words(need().src, src.data(), src.size());
      const auto tw = group_words(need().tgt, tgt.data(), tgt.size());
      const auto side = [](const std::vector<WordSpan>& ws, val& texts) {
        std::vector<std::int32_t> spans;
        for (const auto& w : ws) texts.call<void>("push", w.text), spans.push_back(w.first), spans.push_back(w.count);
        return copy_array(spans.data(), spans.size());
      };
      val st = val::array(), tt = val::array();
      val r = ok();
      r.set("sourceSpans", side(sw, st));
      r.set("targetSpans", side(tw, tt));
      r.set("source", st);
      r.set("target", tt);
      if (att_js.isNull() || att_js.isUndefined()) {
        r.set("attention", val::null());
      } else {
        const auto att = from_js_array<float>(att_js, "attention");
        if (att.size() != src.size() * tgt.size())
          throw std::invalid_argument("words: attention holds " + std::to_string(att.size()) + " weights, not " +
                                      std::to_string(tgt.size()) + " x " + std::to_string(src.size()));
        const auto a = word_attention(att.data(), int(tgt.size()), int(src.size()), tw, sw);
        r.set("attention", copy_array(a.data(), a.size()));
      }
      return r;
    });
  }

  const ModelBox& need() const {
    if (!box_) throw NotLoaded("no model is loaded");
    return *box_;
  }

 private:
  std::shared_ptr<ModelBox> box_;
};

class SourceHandle {
 public:
  val encode(const ModelHandle& m, const val& ids_js) {
    return guarded([&] {
      const auto ids = from_js_array<std::int32_t>(ids_js, "source ids");
      auto enc = std::make_shared<Encoded>();
      const ModelBox& box = m.need();
      box.model.encode(ids.data(), int(ids.size()), *enc, box.scratch);
      box_ = m.box();
      enc_ = std::move(enc);
      val r = ok();
      r.set("length", enc_->T);
      return r;
    });
  }
  val memory() const {  // (T, Ho) keys = values h_i
    return guarded([&] {
      need();
      val r = ok();
      r.set("data", copy_array(enc_->memory.data(), enc_->memory.size()));
      r.set("rows", enc_->T);
      r.set("cols", int(enc_->memory.size() / enc_->T));
      r.set("finalState", copy_array(enc_->final_h.data(), enc_->final_h.size()));
      return r;
    });
  }
  const std::shared_ptr<ModelBox>& box() const { return box_; }
  const std::shared_ptr<Encoded>& enc() const { return enc_; }
  void need() const {
    if (!enc_) throw NotEncoded("the source has not been encoded");
  }

 private:
  std::shared_ptr<ModelBox> box_;
  std::shared_ptr<Encoded> enc_;
};

// A number as a person writes it: 5000, 0.5, 1e+06 (not 5000.000000).
std::string num_str(double x) { return number_text(x); }

// The options object of translate(), translateBatch() and decoder(): each member the decode options'
// table names (decode/options.hpp) is checked against its row, and `prefix` (token ids) is read apart.
DecodeOptions parse_options(const val& o) {
  DecodeOptions d;
  if (o.isNull() || o.isUndefined()) return d;
  auto has = [&](const char* k) { return !o[k].isUndefined() && !o[k].isNull(); };
  for (const DecodeOptionSpec& s : decode_option_table()) {
    if (!has(s.js)) continue;
    const val v = o[s.js];
    const std::string type = v.typeOf().as<std::string>(), label = std::string("option '") + s.js + "'";
    double x;
    if (s.kind == OptionKind::Flag) {
      if (type != "boolean") throw std::invalid_argument(label + " must be true or false");
      x = v.as<bool>() ? 1 : 0;
    } else {
      if (type != "number") throw std::invalid_argument(label + " must be a number");
      x = v.as<double>();  // checked as a double: wasm's long is 32 bits
    }
    const std::string e = option_value_error(s, x, label);
    if (!e.empty()) throw std::invalid_argument(e);
    s.set(d, x);
  }
  // Its upper bound is the beam asked for (validate() says so too), not the largest beam there is.
  if (d.num_hypotheses > d.beam)
    throw std::invalid_argument("option 'numHypotheses' is " + std::to_string(d.num_hypotheses) +
                                "; it must be in [0, beam = " + std::to_string(d.beam) + "]");
  if (has("prefix")) d.prefix = from_js_array<std::int32_t>(o["prefix"], "prefix");
  return d;
}

// The decode options' table for the JavaScript wrapper: [{name, kind, min, max, default, note, flag,
// metavar, help, scope}], scope naming where the option applies ('one', 'batch', 'step', 'eval').
val decode_options_val() {
  val out = val::array();
  int i = 0;
  for (const DecodeOptionSpec& s : decode_option_table()) {
    val r = val::object();
    r.set("name", std::string(s.js));
    r.set("kind", std::string(s.kind == OptionKind::Integer  ? "integer"
                              : s.kind == OptionKind::Number ? "number"
                                                             : "boolean"));
    r.set("min", s.min);
    r.set("max", s.max);
    r.set("default", s.get(DecodeOptions{}));
    r.set("note", std::string(s.note));
    r.set("flag", std::string(s.flag));
    r.set("metavar", std::string(s.metavar));
    r.set("help", std::string(s.help));
    val scope = val::array();
    int j = 0;
    for (auto [bit, name] : {std::pair<unsigned, const char*>{kScopeOne, "one"},
                             {kScopeBatch, "batch"},
                             {kScopeStep, "step"},
                             {kScopeEval, "eval"}})
      if (s.scope & bit) scope.set(j++, std::string(name));
    r.set("scope", scope);
    out.set(i++, r);
  }
  return out;
}

// A beam search's trace (DecodeResult::trace) as flat arrays: step k's nodes are [starts[k], starts[k+1]).
val trace_val(const std::vector<std::vector<BeamNode>>& trace) {
  std::vector<std::int32_t> starts{0}, parent, token;
  std::vector<float> log_prob, score;
  std::vector<std::uint8_t> ended;
  for (const auto& step : trace) {
    for (const BeamNode& n : step) {
      parent.push_back(n.parent);
      token.push_back(n.token);
      log_prob.push_back(n.log_prob);
      score.push_back(n.score);
      ended.push_back(n.ended ? 1 : 0);
    }
    starts.push_back(std::int32_t(parent.size()));
  }
  val t = val::object();
  set_arrays(t, "starts", starts, "parent", parent, "token", token, "logProb", log_prob, "score", score, "ended",
             ended);
  return t;
}

val hypothesis_val(const Hypothesis& h) {
  val r = val::object();
  set_arrays(r, "ids", h.tokens, "attention", h.attention);
  r.set("logProb", h.log_prob);
  r.set("score", h.score);
  r.set("finished", h.finished);
  return r;
}

// The model decoding is the one given (not the one that encoded): Model::start refuses a source
// encoded by another model, whose sizes need not fit.
val translate(const ModelHandle& m, const SourceHandle& s, const val& options) {
  return guarded([&] {
    s.need();
    const DecodeResult r = decode(m.need().model, *s.enc(), parse_options(options));
    val hs = val::array();
    for (const auto& h : r.hypotheses) hs.call<void>("push", hypothesis_val(h));
    val out = ok();
    out.set("hypotheses", hs);
    out.set("cols", r.src_len);
    if (!r.trace.empty()) out.set("trace", trace_val(r.trace));
    return out;
  });
}

// UTF-16 code units of valid UTF-8 (what String.length counts): 2 for a 4-byte sequence, else 1.
std::size_t utf16_length(const std::string& s) {
  std::size_t n = 0;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c & 0xC0) != 0x80) n += c >= 0xF0 ? 2 : 1;
  }
  return n;
}

// Many sources in one call: translate_batch (src/decode/decode.hpp) behind Model.translateBatch in
// wasm/attnseq.js. inputs[i] is a source's text (tokenized here as ModelHandle::tokenize does) or its
// ids (an Int32Array the wrapper made). The result's numbers go out as a few flat typed arrays, whatever
// the number of sources, for the wrapper to cut into translate()'s objects:
//   srcLengths[i]          source tokens of input i (its attention's columns)
//   pieces, pieceLengths   the source token strings of the text inputs, joined, and their UTF-16 lengths
//   hypCounts[i]           hypotheses of input i, best first
//   tokenCounts[h], ids    target ids of each hypothesis h (all inputs' in order), joined
//   attention              each hypothesis' tokens x source length weights, joined
//   logProb[h], score[h], finished[h]
// Every input is checked before any decoding; a bad one is {ok: false, code, message, index} with its
// index (the message is what translate() of that input alone says); index -1 for an option.
//   memberAttention        an ensemble's (others non-empty): each hypothesis's members' own attention, one
//                          tokens x source length matrix per member, member after member, joined
// others: the models that decode together with m, an ensemble (decode.hpp, Ensemble), as an array of
// ModelHandle (empty: m alone); m's vocabularies read the text. Members are named models[i] in errors.
struct JsEnsemble {
  std::vector<std::shared_ptr<ModelBox>> boxes;  // kept alive for the call
  std::unique_ptr<Ensemble> ensemble;
};

JsEnsemble js_ensemble(const ModelHandle& m, const val& others) {
  JsEnsemble r;
  m.need();
  r.boxes.push_back(m.box());
  const auto n = others["length"].as<unsigned>();
  for (unsigned i = 0; i < n; ++i) {
    const ModelHandle* h = others[i].as<ModelHandle*>(emscripten::allow_raw_pointers());
    if (!h) throw std::invalid_argument("ensemble: models[" + std::to_string(i + 1) + "] is not a model");
    h->need();
    r.boxes.push_back(h->box());
  }
  std::vector<const Model*> models;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < r.boxes.size(); ++i) {
    models.push_back(&r.boxes[i]->model);
    names.push_back("models[" + std::to_string(i) + "]");
  }
  r.ensemble = std::make_unique<Ensemble>(models, names);
  return r;
}

// Whether the models can decode together: ok, or Ensemble's refusal naming the one that differs.
val check_ensemble(const ModelHandle& m, const val& others) {
  return guarded([&] {
    js_ensemble(m, others);
    return ok();
  });
}

val translate_batch_js(const ModelHandle& m, const val& others, const val& inputs, const val& options, int max_rows) {
  return guarded([&] {
    const JsEnsemble members = js_ensemble(m, others);
    const ModelBox& box = m.need();
    const Model& model = box.model;
    const DecodeOptions opt = parse_options(options);
    // What is wrong whatever the source (beam and temperature, num_hypotheses, a prefix too long for
    // any source) is the options' fault, not the first input's.
    validate(opt, model.config(), kMaxSourceLength);
    const auto n = std::size_t(inputs["length"].as<unsigned>());
    std::vector<std::vector<std::int32_t>> sources(n);
    std::string pieces;
    std::vector<std::int32_t> piece_lengths;
    for (std::size_t i = 0; i < n; ++i) {
      try {
        const val x = inputs[i];
        if (x.typeOf().as<std::string>() == "string") {
          for (const auto& p : box.src.pieces(x.as<std::string>())) {
            sources[i].push_back(box.src.lookup(p));
            pieces += p;
            piece_lengths.push_back(std::int32_t(utf16_length(p)));
          }
        } else {
          sources[i] = from_js_array<std::int32_t>(x, "source ids");
        }
        if (sources[i].empty()) throw std::invalid_argument("the source is empty");  // as Model.encode says
        model.check_source(sources[i].data(), int(sources[i].size()));
        validate(opt, model.config(), int(sources[i].size()));
      } catch (...) {
        const Failure x = current_failure();
        val e = error(x.code, x.message);
        e.set("index", double(i));
        return e;
      }
    }
    // The other members need no check of their own: an ensemble's members share one source vocabulary.
    const std::vector<DecodeResult> res = translate_batch(*members.ensemble, sources, opt, max_rows);
    std::vector<std::int32_t> src_lengths, hyp_counts, token_counts, ids;
    std::vector<float> attention, log_prob, score, member_attention;
    std::vector<std::uint8_t> finished;
    for (const DecodeResult& r : res) {
      src_lengths.push_back(r.src_len);
      hyp_counts.push_back(std::int32_t(r.hypotheses.size()));
      for (const Hypothesis& h : r.hypotheses) {
        token_counts.push_back(std::int32_t(h.tokens.size()));
        ids.insert(ids.end(), h.tokens.begin(), h.tokens.end());
        attention.insert(attention.end(), h.attention.begin(), h.attention.end());
        for (const auto& a : h.member_attention) member_attention.insert(member_attention.end(), a.begin(), a.end());
        log_prob.push_back(h.log_prob);
        score.push_back(h.score);
        finished.push_back(h.finished);
      }
    }
    val out = ok();
    out.set("pieces", pieces);
    set_arrays(out, "srcLengths", src_lengths, "pieceLengths", piece_lengths, "hypCounts", hyp_counts, "tokenCounts",
               token_counts, "ids", ids, "attention", attention, "logProb", log_prob, "score", score, "finished",
               finished);
    out.set("members", members.ensemble->size());
    if (members.ensemble->size() > 1)
      out.set("memberAttention", copy_array(member_attention.data(), member_attention.size()));
    return out;
  });
}

// A step record's fields in order, [{name, offset, length}] (src/decode/step_record.hpp).
val layout_fields(const StepRecordLayout& L) {
  val fields = val::array();
  for (int f = 0; f < StepRecordLayout::kFieldCount; ++f) {
    const auto field = StepRecordLayout::Field(f);
    val x = val::object();
    x.set("name", std::string(StepRecordLayout::name(field)));
    x.set("offset", double(L[field].offset));
    x.set("length", double(L[field].length));
    fields.call<void>("push", x);
  }
  return fields;
}

class DecoderHandle {
 public:
  val start(const ModelHandle& m, const SourceHandle& s, const val& options) {
    return guarded([&] {
      s.need();
      auto sess = std::make_unique<Session>(m.need().model, *s.enc(), parse_options(options));
      box_ = m.box();
      enc_ = s.enc();
      sess_ = std::move(sess);
      layout_ = step_record_layout(box_->model.config(), enc_->T);
      rec_.assign(layout_.size, 0.f);
      topk_idx_.assign(kMaxTopk, 0);
      override_.assign(std::size_t(enc_->T), 0.f);
      val r = ok();
      r.set("maxLength", sess_->max_length());
      return r;
    });
  }
  // The step record's layout for this decoder (src/decode/step_record.hpp): its size in floats and its
  // fields in order, {name, offset, length}. The JS wrapper fetches it once per decoder.
  val recordLayout() const {
    val r = val::object();
    r.set("size", double(layout_.size));
    r.set("fields", layout_fields(layout_));
    return r;
  }
  // One step, called through the plain export attnseq_decoder_step below rather than an Embind
  // method: Embind's generic invoker (this build has no dynamic code) builds argument arrays and a
  // closure per call, which cost more than the step itself at H = 64. forced < 0: the decoder chooses.
  // use_override: the step's attention is the row JavaScript wrote at overrideBuffer() (source length).
  // The step's numbers go into one float record in wasm memory (recordLayout() above) that the JS
  // wrapper copies out in one slice; the return value is 0, or 1 with the error in
  // lastErrorCode()/lastErrorMessage().
  int step_impl(int forced, bool use_override, int topk) {
    try {
      if (!sess_) throw std::invalid_argument("the decoder has not been started");
      if (topk < 0 || topk > kMaxTopk)
        throw std::invalid_argument("topk is " + std::to_string(topk) + "; it must be in [0, " +
                                    std::to_string(kMaxTopk) + "]");
      sess_->step(forced, use_override ? override_.data() : nullptr);
      write_step_record(layout_, *sess_, topk, topk_idx_.data(), rec_.data());
      return 0;
    } catch (...) {
      Failure x = current_failure();
      err_code_ = x.code, err_msg_ = std::move(x.message);
    }
    return 1;
  }
  // Addresses the JS wrapper reads once per decoder (none moves until the handle is deleted): this
  // handle (for attnseq_decoder_step), the record, and the override row (source length).
  double address() const { return double(reinterpret_cast<std::uintptr_t>(this)); }
  double overrideBuffer() const { return double(reinterpret_cast<std::uintptr_t>(override_.data())); }
  double record() const { return double(reinterpret_cast<std::uintptr_t>(rec_.data())); }
  std::string lastErrorCode() const { return err_code_; }
  std::string lastErrorMessage() const { return err_msg_; }

  // Benchmark hook: n greedy steps of `rows` rows at once (as beam search steps its hypotheses)
  // straight in C++ (no JS, no copies) on a copy of this decoder's source; returns microseconds per
  // step. Lets a benchmark put the JS layer's cost beside the engine's in one module and one run.
  double rawStepMicros(int n, int rows) const {
    if (!sess_ || n < 1 || rows < 1 || rows > 64) return -1;
    const Model& m = box_->model;
    const int V = m.config().tgt_vocab;
    DecoderState st;
    std::vector<std::int32_t> prev(static_cast<std::size_t>(rows)), zeros(static_cast<std::size_t>(rows), 0);
    auto restart = [&] {  // s_0 in every row, as a beam's first step has it
      m.start(*enc_, st, rows);
      m.reorder(st, zeros.data(), rows);
      std::fill(prev.begin(), prev.end(), m.config().bos);
    };
    restart();
    const double t0 = emscripten_get_now();
    for (int i = 0; i < n; ++i) {
      m.step(*enc_, st, prev.data(), rows);
      for (int r = 0; r < rows; ++r)
        prev[std::size_t(r)] = std::int32_t(kernels::argmax(st.logits.data() + std::size_t(r) * std::size_t(V), V));
      if (i % 64 == 63) restart();
    }
    return (emscripten_get_now() - t0) * 1000.0 / n;
  }
  bool done() const { return sess_ && sess_->done(); }
  int length() const { return sess_ ? sess_->length() : 0; }

 private:
  std::shared_ptr<ModelBox> box_;
  std::shared_ptr<Encoded> enc_;
  std::unique_ptr<Session> sess_;
  StepRecordLayout layout_;
  std::vector<float> rec_;
  std::vector<std::int32_t> topk_idx_;
  std::vector<float> override_;
  std::string err_code_, err_msg_;
};

// Step-by-step decoding of an ensemble (Session(Ensemble, ...)): the members' encodings of one source,
// a step at a time. Its record is the ensemble's own (layout without query, context and scores: the
// mean attention and mean log-probabilities) followed by one record per member in that member's
// layout (its query, context, scores, weights and logits).
class EnsembleDecoderHandle {
 public:
  val start(const ModelHandle& m, const val& others, const val& sources, const val& options) {
    return guarded([&] {
      JsEnsemble members = js_ensemble(m, others);
      const auto n = sources["length"].as<unsigned>();
      if (n != unsigned(members.ensemble->size()))
        throw std::invalid_argument("an ensemble of " + std::to_string(members.ensemble->size()) +
                                    " models was given " + std::to_string(n) + " encodings of the source");
      std::vector<std::shared_ptr<Encoded>> encs;
      std::vector<const Encoded*> ptrs;
      for (unsigned i = 0; i < n; ++i) {
        const SourceHandle* s = sources[i].as<SourceHandle*>(emscripten::allow_raw_pointers());
        if (!s) throw std::invalid_argument("encodings[" + std::to_string(i) + "] is not an encoded source");
        s->need();
        if (s->box() != members.boxes[i])
          throw std::invalid_argument("encodings[" + std::to_string(i) + "] was not made by models[" +
                                      std::to_string(i) + "]");
        encs.push_back(s->enc());
        ptrs.push_back(s->enc().get());
      }
      auto sess = std::make_unique<Session>(*members.ensemble, ptrs, parse_options(options));
      members_ = std::move(members);
      encs_ = std::move(encs);
      sess_ = std::move(sess);
      const int T = encs_[0]->T;
      mean_ = step_record_layout(members_.ensemble->config(), T, false);
      std::size_t size = mean_.size;
      member_layouts_.clear();
      member_offsets_.clear();
      for (int k = 0; k < members_.ensemble->size(); ++k) {
        member_offsets_.push_back(size);
        member_layouts_.push_back(step_record_layout(members_.ensemble->member(k).config(), T));
        size += member_layouts_.back().size;
      }
      rec_.assign(size, 0.f);
      topk_idx_.assign(kMaxTopk, 0);
      override_.assign(std::size_t(T), 0.f);
      val r = ok();
      r.set("maxLength", sess_->max_length());
      return r;
    });
  }
  // Where JavaScript writes an attention override row (source length) before step(..., true).
  double overrideBuffer() const { return double(reinterpret_cast<std::uintptr_t>(override_.data())); }
  // {size, fields, members: [{offset, fields}]}: the ensemble's fields, then each member's, by name.
  val recordLayout() const {
    val ms = val::array();
    for (std::size_t k = 0; k < member_layouts_.size(); ++k) {
      val x = val::object();
      x.set("offset", double(member_offsets_[k]));
      x.set("fields", layout_fields(member_layouts_[k]));
      ms.call<void>("push", x);
    }
    val r = val::object();
    r.set("size", double(rec_.size()));
    r.set("fields", layout_fields(mean_));
    r.set("members", ms);
    return r;
  }
  // One step (forced < 0: the ensemble chooses; use_override: every member attends with the row at
  // overrideBuffer()); its numbers go into the record. 0, or 1 with the error in
  // lastErrorCode()/lastErrorMessage().
  int step(int forced, int topk, bool use_override) {
    try {
      if (!sess_) throw std::invalid_argument("the decoder has not been started");
      if (topk < 0 || topk > kMaxTopk)
        throw std::invalid_argument("topk is " + std::to_string(topk) + "; it must be in [0, " +
                                    std::to_string(kMaxTopk) + "]");
      sess_->step(forced, use_override ? override_.data() : nullptr);
      write_step_record(mean_, *sess_, topk, topk_idx_.data(), rec_.data());
      for (std::size_t k = 0; k < member_layouts_.size(); ++k)
        write_member_record(member_layouts_[k], *sess_, int(k), rec_.data() + member_offsets_[k]);
      return 0;
    } catch (...) {
      Failure x = current_failure();
      err_code_ = x.code, err_msg_ = std::move(x.message);
    }
    return 1;
  }
  double record() const { return double(reinterpret_cast<std::uintptr_t>(rec_.data())); }
  std::string lastErrorCode() const { return err_code_; }
  std::string lastErrorMessage() const { return err_msg_; }
  bool done() const { return sess_ && sess_->done(); }
  int length() const { return sess_ ? sess_->length() : 0; }

 private:
  JsEnsemble members_;  // (the models, kept alive with the ensemble the session reads)
  std::vector<std::shared_ptr<Encoded>> encs_;
  std::unique_ptr<Session> sess_;
  StepRecordLayout mean_;
  std::vector<StepRecordLayout> member_layouts_;
  std::vector<std::size_t> member_offsets_;
  std::vector<float> rec_;
  std::vector<float> override_;
  std::vector<std::int32_t> topk_idx_;
  std::string err_code_, err_msg_;
};

// Training in the engine: a model from a configuration, a task (built-in or TSV), and the trainer.
class TrainerHandle {
 public:
  val create(const val& cfg, const val& task, const val& opts) {
    return guarded([&] {
      auto str = [](const val& o, const char* k, const char* def) {
        const val v = o[k];
        if (v.isUndefined() || v.isNull()) return std::string(def);
        if (v.typeOf().as<std::string>() != "string")
          throw std::invalid_argument(std::string("'") + k + "' must be a string");
        return v.as<std::string>();
      };
      auto num = [](const val& o, const char* k, double def, double lo, double hi) {
        const val v = o[k];
        if (v.isUndefined() || v.isNull()) return def;
        if (v.typeOf().as<std::string>() != "number")
          throw std::invalid_argument(std::string("'") + k + "' must be a number");
        const double x = v.as<double>();
        if (!(x >= lo && x <= hi))
          throw std::invalid_argument(std::string("'") + k + "' is " + num_str(x) + "; it must be in [" + num_str(lo) +
                                      ", " + num_str(hi) + "]");
        return x;
      };
      auto flag = [](const val& o, const char* k) {
        const val v = o[k];
        return !v.isUndefined() && !v.isNull() && v.as<bool>();
      };
      std::unique_ptr<train::Task> t;
      if (task.typeOf().as<std::string>() == "string") {
        train::TaskOptions to;
        to.min_len = int(num(opts, "minLength", 1, 1, kMaxSourceLength));
        to.max_len = int(num(opts, "maxLength", 60, 1, kMaxSourceLength));
        t = train::make_task(task.as<std::string>(), to);
      } else {
        // `tokenizer` sets both sides (word by default); srcTokenizer / tgtTokenizer override one side.
        auto kind = [&](const char* key, const std::string& def) {
          const std::string k = str(task, key, def.c_str());
          train::parse_text_tokenizer(k, std::string("'") + key + "'");
          return k;
        };
        const std::string both = kind("tokenizer", "word");
        auto tk = [](const std::string& k) { return train::parse_text_tokenizer(k, k); };
        t = train::make_tsv_task(str(task, "tsv", ""), tk(kind("srcTokenizer", both)), tk(kind("tgtTokenizer", both)));
      }
      // Names, defaults and ranges from the one settings table (train/settings.hpp), as `attnseq train`.
      auto setting = [&](const val& o, const char* cli, double def) {
        const auto& s = train::setting(cli);
        const double x = num(o, s.js, def, s.lo, s.hi);
        if (s.integer && x != std::floor(x))
          throw std::invalid_argument(std::string("'") + s.js + "' must be an integer");
        return x;
      };
      auto dflt = [](const char* cli) { return train::setting(cli).def; };
      const std::string style = str(cfg, "style", "luong");
      train::ModelChoice mc;
      mc.style = train::parse_style(style, "'style'");
      mc.score = train::parse_score(str(cfg, "score", "dot"), "'score'");
      mc.cell = train::parse_cell(str(cfg, "cell", "gru"), "'cell'");
      mc.bidirectional = flag(cfg, "bidirectional");
      mc.input_feeding = flag(cfg, "inputFeeding");
      mc.bridge = flag(cfg, "bridge");
      mc.tie_embeddings = flag(cfg, "tieEmbeddings");
      mc.attn_query_bias = flag(cfg, "attentionQueryBias");
      mc.hidden = int(setting(cfg, "--hidden", dflt("--hidden")));
      mc.embedding = int(setting(cfg, "--embedding", mc.hidden));
      mc.layers = int(setting(cfg, "--layers", dflt("--layers")));
      mc.attn_dim = int(setting(cfg, "--attn-dim", mc.hidden));
      ModelConfig c = train::architecture(mc, "'hidden'");
      t->set_vocabularies(c);
      c.extra = {{"name", str(cfg, "name", (t->name() + "-" + style).c_str())}, {"task", t->name()}};
      train::TrainOptions o;
      o.batch_size = int(setting(opts, "--batch", dflt("--batch")));
      o.lr = float(setting(opts, "--lr", dflt("--lr")));
      o.steps = int(setting(opts, "--steps", dflt("--steps")));
      o.warmup = int(setting(opts, "--warmup", dflt("--warmup")));
      o.clip = float(setting(opts, "--clip", dflt("--clip")));
      o.seed = std::uint64_t(setting(opts, "--seed", dflt("--seed")));
      auto model = std::make_unique<Model>(c);
      train::initialize(*model, o.seed);
      const train::Task* tp = t.get();
      const Model* mp = model.get();
      train::Sampler sampler = [tp, mp](Rng& rng) {
        const auto ex = tp->sample(rng);
        const auto& cc = mp->config();
        return train::Pair{train::to_ids(ex.src, cc.src_tokens, cc.unk), train::to_ids(ex.tgt, cc.tgt_tokens, cc.unk)};
      };
      auto tr = std::make_unique<train::Trainer>(*model, sampler, o);
      task_ = std::move(t);
      model_ = std::move(model);
      trainer_ = std::move(tr);
      val r = ok();
      r.set("parameters", double(model_->params().data.size()));
      r.set("srcVocabSize", model_->config().src_vocab);
      r.set("tgtVocabSize", model_->config().tgt_vocab);
      return r;
    });
  }
  // Runs n steps; reports the last step and the mean loss over the n.
  val step(int n) {
    return guarded([&] {
      need();
      if (n < 1 || n > 100000) throw std::invalid_argument("steps per call must be in [1, 100000]");
      const double t0 = emscripten_get_now();
      train::StepReport rep;
      double loss = 0, acc = 0;
      long tokens = 0;
      for (int i = 0; i < n; ++i) {
        rep = trainer_->step();
        loss += rep.loss;
        acc += rep.token_accuracy;
        tokens += rep.tokens;
      }
      const double ms = emscripten_get_now() - t0;
      val r = ok();
      r.set("step", rep.step);
      r.set("loss", loss / n);
      r.set("tokenAccuracy", acc / n);
      r.set("gradNorm", rep.grad_norm);
      r.set("lr", rep.lr);
      r.set("tokens", double(tokens));
      r.set("tokensPerSecond", ms > 0 ? tokens * 1000.0 / ms : 0.0);
      return r;
    });
  }
  val save() {
    return guarded([&] {
      need();
      model_->prepare();
      const auto bytes = save_checkpoint(*model_);
      val r = ok();
      r.set("bytes", copy_array(bytes.data(), bytes.size()));
      return r;
    });
  }
  val saveState() {
    return guarded([&] {
      need();
      const auto bytes = trainer_->save_state();
      val r = ok();
      r.set("bytes", copy_array(bytes.data(), bytes.size()));
      return r;
    });
  }
  val evaluate(int n, double seed) {
    return guarded([&] {
      need();
      if (n < 1 || n > 100000) throw std::invalid_argument("evaluation size must be in [1, 100000]");
      model_->prepare();
      const auto r = train::evaluate(*model_, train::sample_n(*task_, std::uint64_t(seed), n));
      val out = ok();
      out.set("n", r.n);
      out.set("exactMatch", r.exact_rate());
      out.set("tokenAccuracy", r.token_accuracy());
      out.set("aer", r.aer());
      return out;
    });
  }

 private:
  void need() const {
    if (!trainer_) throw std::invalid_argument("the trainer has not been created");
  }
  std::unique_ptr<train::Task> task_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<train::Trainer> trainer_;
};

// Bytes of wasm heap in use and the stack pointer: what a leak test watches.
val memory_stats() {
  val r = val::object();
  r.set("heapBytes", double(mallinfo().uordblks));
  r.set("stackPointer", double(emscripten_stack_get_current()));
  r.set("memoryBytes", double(emscripten_get_heap_size()));
  return r;
}

// Why the relaxed-SIMD products are not in use ("" while they are), as wasm/relaxed.js last said.
std::string& relaxed_why_not() {
  static std::string why = "not tried";
  return why;
}

std::string build_info() {
  return std::string("xsimd ") + simd::arch_name() + (kernels::uses_reference ? " (reference kernels)" : "") +
         (simd::relaxed_products() ? "; products: relaxed SIMD"
                                   : "; products: plain SIMD (relaxed SIMD: " + relaxed_why_not() + ")");
}

// wasm/relaxed.js: the relaxed module's products, as indices into this module's function table (a
// function pointer in wasm32 is its index there). Checked before use (kernels/dispatch.hpp).
std::string use_relaxed_products(int gemm_packed, int gemm_packed_acc, int gemm_q8r, int gemm_acc_tile) {
  relaxed_why_not() =
      simd::use_relaxed_products(reinterpret_cast<simd::GemmPackedFn>(static_cast<std::uintptr_t>(gemm_packed)),
                                 reinterpret_cast<simd::GemmPackedAccFn>(static_cast<std::uintptr_t>(gemm_packed_acc)),
                                 reinterpret_cast<GemmQ8RFn>(static_cast<std::uintptr_t>(gemm_q8r)),
                                 reinterpret_cast<simd::AccTileFn>(static_cast<std::uintptr_t>(gemm_acc_tile)));
  return relaxed_why_not();
}

void use_plain_products(const std::string& why) {
  simd::use_plain_products();
  relaxed_why_not() = why;
}

}  // namespace

// dec.step()'s one call per step: plain numbers in, a status out, no Embind conversion. `handle` is
// DecoderHandle::address() of a live handle; the wrapper checks for dispose() before calling.
extern "C" EMSCRIPTEN_KEEPALIVE int attnseq_decoder_step(std::uintptr_t handle, int forced, int topk,
                                                         int use_override) {
  return reinterpret_cast<DecoderHandle*>(handle)->step_impl(forced, use_override != 0, topk);
}

// The functions both decoder handles have (the wrapper's Decoder and EnsembleDecoder read them
// alike); each class adds its own after.
template <class H>
const emscripten::class_<H>& with_decoder_functions(const emscripten::class_<H>& c) {
  c.template constructor<>()
      .function("start", &H::start)
      .function("recordLayout", &H::recordLayout)
      .function("record", &H::record)
      .function("lastErrorCode", &H::lastErrorCode)
      .function("lastErrorMessage", &H::lastErrorMessage)
      .function("overrideBuffer", &H::overrideBuffer)
      .function("done", &H::done)
      .function("length", &H::length);
  return c;
}

EMSCRIPTEN_BINDINGS(attnseq) {
  using namespace emscripten;
  class_<ModelHandle>("Model")
      .constructor<>()
      .function("load", &ModelHandle::load)
      .function("loaded", &ModelHandle::loaded)
      .function("config", &ModelHandle::config)
      .function("tokenize", &ModelHandle::tokenize)
      .function("detokenize", &ModelHandle::detokenize)
      .function("words", &ModelHandle::words);
  class_<SourceHandle>("Source")
      .constructor<>()
      .function("encode", &SourceHandle::encode)
      .function("memory", &SourceHandle::memory);
  with_decoder_functions(class_<DecoderHandle>("Decoder"))
      .function("address", &DecoderHandle::address)
      .function("rawStepMicros", &DecoderHandle::rawStepMicros);
  with_decoder_functions(class_<EnsembleDecoderHandle>("EnsembleDecoder"))
      .function("step", &EnsembleDecoderHandle::step);
  class_<TrainerHandle>("Trainer")
      .constructor<>()
      .function("create", &TrainerHandle::create)
      .function("step", &TrainerHandle::step)
      .function("save", &TrainerHandle::save)
      .function("saveState", &TrainerHandle::saveState)
      .function("evaluate", &TrainerHandle::evaluate);
  function("translate", &translate);
  function("translateBatch", &translate_batch_js);
  function("checkEnsemble", &check_ensemble);
  function("buildInfo", &build_info);
  function("useRelaxedProducts", &use_relaxed_products);
  function("usePlainProducts", &use_plain_products);
  function("memoryStats", &memory_stats);
  // The decode options' table (decode/options.hpp).
  function("decodeOptions", &decode_options_val);
  // Every code a failure can carry (tests hold ERROR_CODES to them).
  function("statusCodes", &status_codes);
  constant("maxTopk", kMaxTopk);                         // the top-k limit decoder() checks in JavaScript
  constant("heldOutSeed", double(train::kHeldOutSeed));  // Trainer.evaluate()'s default seed
  constant("maxMembers", kMaxMembers);                   // createEnsemble()'s most models, checked in JavaScript
  constant("maxRows", kMaxRows);                         // translateBatch()'s largest maxRows, checked in JavaScript
  constant("defaultRows", kDefaultBatchRows);            // and its default
}
