// `en-ko`: a toy English -> Korean grammar, word level, past tense only. English is SVO ("Mina read
// the book at the library"), Korean SOV with particles fused to nouns ("미나가 도서관에서 책을 읽었다").
// Subject 이/가 and object 을/를 follow the noun's batchim; 에 marks a destination (went/came to),
// 에서 a place where something happens. Each Korean word links to its English content word only
// (names, nouns, verbs); articles, "to", "at" and "for" link to nothing. A toy, not a translator.
#include <algorithm>
#include <stdexcept>

#include "train/tasks.hpp"

namespace attnseq::train {
namespace {

struct Noun {
  const char* en;
  const char* ko;
};
const Noun kNames[] = {{"Jane", "제인"}, {"Tom", "톰"},    {"Mina", "미나"}, {"Minho", "민호"}, {"Sora", "소라"},
                       {"John", "존"},   {"Emma", "엠마"}, {"Jisu", "지수"}, {"Sam", "샘"},     {"Yuna", "유나"}};
const Noun kPlaces[] = {{"store", "가게"},    {"school", "학교"},   {"park", "공원"},   {"library", "도서관"},
                        {"hospital", "병원"}, {"station", "역"},    {"market", "시장"}, {"restaurant", "식당"},
                        {"cafe", "카페"},     {"office", "사무실"}, {"bank", "은행"},   {"museum", "박물관"}};

// What an object can be the object of.
enum : unsigned { kFood = 1, kDrink = 2, kReadable = 4, kWritable = 8, kBuyable = 16, kViewable = 32 };
struct Object {
  const char* en;
  const char* ko;
  unsigned kinds;
  bool mass;  // mass nouns take "the" or no article; count nouns "a"/"an" or "the"
};
const Object kObjects[] = {
    {"apple", "사과", kFood | kBuyable, false},
    {"banana", "바나나", kFood | kBuyable, false},
    {"bread", "빵", kFood | kBuyable, true},
    {"cake", "케이크", kFood | kBuyable, false},
    {"egg", "계란", kFood | kBuyable, false},
    {"orange", "오렌지", kFood | kBuyable, false},
    {"sandwich", "샌드위치", kFood | kBuyable, false},
    {"rice", "밥", kFood, true},
    {"coffee", "커피", kDrink | kBuyable, true},
    {"tea", "차", kDrink | kBuyable, true},
    {"milk", "우유", kDrink | kBuyable, true},
    {"water", "물", kDrink | kBuyable, true},
    {"juice", "주스", kDrink | kBuyable, true},
    {"book", "책", kReadable | kWritable | kBuyable, false},
    {"letter", "편지", kReadable | kWritable, false},
    {"newspaper", "신문", kReadable | kBuyable, false},
    {"magazine", "잡지", kReadable | kBuyable, false},
    {"poem", "시", kReadable | kWritable, false},
    {"email", "이메일", kReadable | kWritable, false},
    {"umbrella", "우산", kBuyable, false},
    {"bag", "가방", kBuyable, false},
    {"flower", "꽃", kBuyable | kViewable, false},
    {"movie", "영화", kViewable, false},
    {"painting", "그림", kViewable | kBuyable, false},
};

// What follows a verb in English.
enum class Frame {
  Motion,    // to the PLACE                       -> PLACE에
  Object,    // [a/an/the] OBJECT [at the PLACE]   -> [PLACE에서] OBJECT을/를
  Person,    // NAME [at the PLACE]                -> [PLACE에서] NAME을/를
  Intrans,   // [at the PLACE]                     -> [PLACE에서]
  Waited,    // for NAME [at the PLACE] | at the PLACE
  SawLiked,  // saw: NAME or OBJECT; liked: NAME, OBJECT or the PLACE
};
struct Verb {
  const char* en;
  const char* ko;  // past tense, plain style
  Frame frame;
  unsigned objects;  // kinds of object allowed (Object / SawLiked frames)
};
constexpr unsigned kAll = kFood | kDrink | kReadable | kWritable | kBuyable | kViewable;
const Verb kVerbs[] = {
    {"went", "갔다", Frame::Motion, 0},          {"came", "왔다", Frame::Motion, 0},
    {"ate", "먹었다", Frame::Object, kFood},     {"read", "읽었다", Frame::Object, kReadable},
    {"bought", "샀다", Frame::Object, kBuyable}, {"saw", "봤다", Frame::SawLiked, kViewable},
    {"met", "만났다", Frame::Person, 0},         {"drank", "마셨다", Frame::Object, kDrink},
    {"wrote", "썼다", Frame::Object, kWritable}, {"liked", "좋아했다", Frame::SawLiked, kAll},
    {"studied", "공부했다", Frame::Intrans, 0},  {"waited", "기다렸다", Frame::Waited, 0},
};
constexpr int kNumNames = int(sizeof kNames / sizeof kNames[0]);
constexpr int kNumPlaces = int(sizeof kPlaces / sizeof kPlaces[0]);
constexpr int kNumObjects = int(sizeof kObjects / sizeof kObjects[0]);
constexpr int kNumVerbs = int(sizeof kVerbs / sizeof kVerbs[0]);

// One sentence of the grammar, language-neutral.
struct Clause {
  enum class Obj { None, Person, Thing, Place };
  int subject = 0;
  int verb = 0;
  Obj obj = Obj::None;
  int object = -1;                                           // index into kNames / kObjects / kPlaces by obj
  enum class Art { None, Indefinite, The } art = Art::None;  // article of a Thing object
  int place = -1;  // destination (Motion) or location ("at the PLACE"); -1 = none
};

std::string subject_form(const std::string& ko) { return ko + (has_batchim(ko) ? "이" : "가"); }
std::string object_form(const std::string& ko) { return ko + (has_batchim(ko) ? "을" : "를"); }
std::string indefinite(const std::string& en) {
  return std::string("aeiou").find(en[0]) != std::string::npos ? "an" : "a";
}

Example render(const Clause& c) {
  const Verb& v = kVerbs[c.verb];
  Example e;
  auto en = [&](const std::string& w) {
    e.src.push_back(w);
    return int(e.src.size()) - 1;
  };
  auto ko = [&](const std::string& w, int src_pos) {
    e.tgt.push_back(w);
    e.align.emplace_back(src_pos, int(e.tgt.size()) - 1);
  };
  const int s_subj = en(kNames[c.subject].en);
  const int s_verb = en(v.en);
  int s_obj = -1, s_place = -1;
  if (v.frame == Frame::Motion) {
    en("to");
    en("the");
    s_place = en(kPlaces[c.place].en);
  } else {
    switch (c.obj) {
      case Clause::Obj::Person:
        if (v.frame == Frame::Waited) en("for");
        s_obj = en(kNames[c.object].en);
        break;
      case Clause::Obj::Thing:
        if (c.art == Clause::Art::Indefinite) en(indefinite(kObjects[c.object].en));
        if (c.art == Clause::Art::The) en("the");
        s_obj = en(kObjects[c.object].en);
        break;
      case Clause::Obj::Place:
        en("the");
        s_obj = en(kPlaces[c.object].en);
        break;
      case Clause::Obj::None: break;
    }
    if (c.place >= 0) {
      en("at");
      en("the");
      s_place = en(kPlaces[c.place].en);
    }
  }
  ko(subject_form(kNames[c.subject].ko), s_subj);
  if (c.place >= 0) ko(std::string(kPlaces[c.place].ko) + (v.frame == Frame::Motion ? "에" : "에서"), s_place);
  if (c.obj != Clause::Obj::None) {
    const char* noun = c.obj == Clause::Obj::Person  ? kNames[c.object].ko
                       : c.obj == Clause::Obj::Thing ? kObjects[c.object].ko
                                                     : kPlaces[c.object].ko;
    ko(object_form(noun), s_obj);
  }
  ko(v.ko, s_verb);
  std::sort(e.align.begin(), e.align.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second < b.second : a.first < b.first;
  });
  return e;
}

// Objects a verb accepts (indices into kObjects).
std::vector<int> objects_for(const Verb& v) {
  std::vector<int> out;
  for (int i = 0; i < kNumObjects; ++i)
    if (kObjects[i].kinds & v.objects) out.push_back(i);
  return out;
}

Clause sample_clause(Rng& rng) {
  Clause c;
  c.subject = int(uniform_index(rng, kNumNames));
  c.verb = int(uniform_index(rng, kNumVerbs));
  const Verb& v = kVerbs[c.verb];
  auto other_person = [&] {  // anyone but the subject
    const int k = int(uniform_index(rng, kNumNames - 1));
    return k >= c.subject ? k + 1 : k;
  };
  auto thing = [&] {
    const auto ok = objects_for(v);
    c.obj = Clause::Obj::Thing;
    c.object = ok[uniform_index(rng, ok.size())];
    const bool definite = uniform_index(rng, 2) == 0;
    c.art = definite ? Clause::Art::The : kObjects[c.object].mass ? Clause::Art::None : Clause::Art::Indefinite;
  };
  auto maybe_place = [&] {
    if (uniform_index(rng, 2) == 0) c.place = int(uniform_index(rng, kNumPlaces));
  };
  switch (v.frame) {
    case Frame::Motion: c.place = int(uniform_index(rng, kNumPlaces)); return c;
    case Frame::Object: thing(); break;
    case Frame::Person:
      c.obj = Clause::Obj::Person;
      c.object = other_person();
      break;
    case Frame::Intrans: break;
    case Frame::Waited:
      if (uniform_index(rng, 2) == 0) {
        c.place = int(uniform_index(rng, kNumPlaces));  // "waited at the PLACE"
        return c;
      }
      c.obj = Clause::Obj::Person;
      c.object = other_person();
      break;
    case Frame::SawLiked: {
      const int choices = v.objects == kAll ? 3 : 2;  // liked can also take a place
      const std::size_t k = uniform_index(rng, std::size_t(choices));
      if (k == 0) {
        c.obj = Clause::Obj::Person;
        c.object = other_person();
      } else if (k == 1) {
        thing();
      } else {
        c.obj = Clause::Obj::Place;
        c.object = int(uniform_index(rng, kNumPlaces));
        return c;  // "liked the park at the library" would be odd
      }
      break;
    }
  }
  maybe_place();
  return c;
}

// ---- parsing English back into a Clause ---------------------------------------------------------
template <class T, int N>
int lookup(const T (&table)[N], const std::string& w) {
  for (int i = 0; i < N; ++i)
    if (w == table[i].en) return i;
  return -1;
}

struct Parser {
  const std::vector<std::string>& w;
  std::size_t i = 0;

  [[noreturn]] void fail(const std::string& expected) const {
    throw std::invalid_argument("en-ko: word " + std::to_string(i) +
                                (i < w.size() ? " (\"" + w[i] + "\")" : std::string(" (end of sentence)")) +
                                ": expected " + expected);
  }
  bool at_end() const { return i >= w.size(); }
  bool peek(const char* s) const { return i < w.size() && w[i] == s; }
  void expect(const char* s) {
    if (!peek(s)) fail(std::string("\"") + s + "\"");
    ++i;
  }
  template <class T, int N>
  int noun(const T (&table)[N], const char* what) {
    const int k = at_end() ? -1 : lookup(table, w[i]);
    if (k < 0) fail(what);
    ++i;
    return k;
  }
  int place_phrase(const char* prep) {  // "<prep> the PLACE"
    expect(prep);
    expect("the");
    return noun(kPlaces, "a place");
  }
  int person(const Clause& c) {
    const int k = noun(kNames, "a name");
    if (k == c.subject) {
      --i;
      fail("a name other than the subject");
    }
    return k;
  }
  // [a/an/the] OBJECT, with the object allowed for the verb and the article right for the noun.
  void thing(Clause& c, const Verb& v) {
    const std::size_t art_pos = i;
    Clause::Art art = Clause::Art::None;
    if (peek("the"))
      art = Clause::Art::The, ++i;
    else if (peek("a") || peek("an"))
      art = Clause::Art::Indefinite, ++i;
    const int k = at_end() ? -1 : lookup(kObjects, w[i]);
    if (k < 0 || !(kObjects[k].kinds & v.objects)) fail(std::string("an object for \"") + v.en + "\"");
    const Object& o = kObjects[k];
    if (art == Clause::Art::Indefinite && (o.mass || w[art_pos] != indefinite(o.en))) {
      i = art_pos;
      fail(o.mass ? std::string("\"the\" or no article before \"") + o.en + "\""
                  : "\"" + indefinite(o.en) + "\" or \"the\" before \"" + o.en + "\"");
    }
    if (art == Clause::Art::None && !o.mass) fail(std::string("an article before \"") + o.en + "\"");
    ++i;
    c.obj = Clause::Obj::Thing;
    c.object = k;
    c.art = art;
  }

  Clause parse() {
    Clause c;
    c.subject = noun(kNames, "a name (the subject)");
    c.verb = noun(kVerbs, "a verb");
    const Verb& v = kVerbs[c.verb];
    switch (v.frame) {
      case Frame::Motion: c.place = place_phrase("to"); break;
      case Frame::Object: thing(c, v); break;
      case Frame::Person: c.obj = Clause::Obj::Person, c.object = person(c); break;
      case Frame::Intrans: break;
      case Frame::Waited:
        if (peek("at")) {
          c.place = place_phrase("at");
          break;
        }
        expect("for");
        c.obj = Clause::Obj::Person, c.object = person(c);
        break;
      case Frame::SawLiked:
        if (!at_end() && lookup(kNames, w[i]) >= 0) {
          c.obj = Clause::Obj::Person, c.object = person(c);
        } else if (v.objects == kAll && i + 1 < w.size() && w[i] == "the" && lookup(kPlaces, w[i + 1]) >= 0) {
          ++i;
          c.obj = Clause::Obj::Place, c.object = noun(kPlaces, "a place");
        } else {
          thing(c, v);
        }
        break;
    }
    if (c.place < 0 && c.obj != Clause::Obj::Place && !at_end()) c.place = place_phrase("at");
    if (!at_end()) fail("the end of the sentence");
    return c;
  }
};

class EnKoTask final : public Task {
 public:
  std::string name() const override { return "en-ko"; }
  TokenizerKind tokenizer() const override { return TokenizerKind::Word; }
  Example sample(Rng& rng) const override { return render(sample_clause(rng)); }

  std::vector<std::string> src_vocab() const override {
    std::vector<std::string> t = {"a", "an", "the", "to", "at", "for"};
    for (const auto& n : kNames) t.push_back(n.en);
    for (const auto& p : kPlaces) t.push_back(p.en);
    for (const auto& o : kObjects) t.push_back(o.en);
    for (const auto& v : kVerbs) t.push_back(v.en);
    return make_vocab(std::move(t));
  }
  std::vector<std::string> tgt_vocab() const override {
    std::vector<std::string> t;
    for (const auto& n : kNames) t.push_back(subject_form(n.ko)), t.push_back(object_form(n.ko));
    for (const auto& p : kPlaces)
      t.push_back(std::string(p.ko) + "에"), t.push_back(std::string(p.ko) + "에서"), t.push_back(object_form(p.ko));
    for (const auto& o : kObjects) t.push_back(object_form(o.ko));
    for (const auto& v : kVerbs) t.push_back(v.ko);
    return make_vocab(std::move(t));
  }
};

}  // namespace

bool has_batchim(const std::string& word) {
  // The last code point: a Hangul syllable (U+AC00..U+D7A3) is three UTF-8 bytes 0xEA..0xED ...
  const std::size_t n = word.size();
  if (n >= 3) {
    const auto b = [&](std::size_t k) { return unsigned(static_cast<unsigned char>(word[k])); };
    if ((b(n - 3) & 0xF0) == 0xE0 && (b(n - 2) & 0xC0) == 0x80 && (b(n - 1) & 0xC0) == 0x80) {
      const unsigned cp = ((b(n - 3) & 0x0F) << 12) | ((b(n - 2) & 0x3F) << 6) | (b(n - 1) & 0x3F);
      if (cp >= 0xAC00 && cp <= 0xD7A3) return (cp - 0xAC00) % 28 != 0;
    }
  }
  throw std::invalid_argument("has_batchim: \"" + word + "\" does not end in a Hangul syllable");
}

Example translate_enko(const std::vector<std::string>& english) {
  Parser p{english};
  return render(p.parse());
}

std::unique_ptr<Task> make_enko_task() { return std::make_unique<EnKoTask>(); }

}  // namespace attnseq::train
