// The Moses pipeline that made the published Multi30K references: lowercase.perl | normalize-punctuation.perl
// -l LANG | tokenizer.perl -l LANG with its defaults (XML escaping on, no aggressive hyphen splitting), for LANG
// en, de or fr, rewritten from the scripts' rules as they stood when those references were made (tokenizer.perl
// of December 2016, normalize-punctuation.perl before November 2019). One line at a time, UTF-8, without its
// "\n"; scoring a model against those references needs its output put through the same steps.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace attnseq::train {

// lowercase.perl: Perl's lc, which is Unicode's lowercase mapping (tabulated here for Latin, IPA, Greek,
// Cyrillic, Latin Extended Additional, Greek Extended and Number Forms; other characters are kept).
std::string moses_lowercase(std::string_view line);

// normalize-punctuation.perl -l lang: spaces around brackets and before : ; % ? !, typographic quotes and
// dashes to ASCII, French guillemets and non-breaking spaces, a quote moved past a comma or period (after it
// in en, before it in de and fr), a non-breaking space between digits to a period (en) or comma (de, fr).
// std::invalid_argument unless lang is en, de or fr.
std::string moses_normalize_punctuation(std::string_view line, const std::string& lang);

// All three steps: the line exactly as the Perl pipeline prints it, tokens joined by single spaces, except
// that a line ending in a period and an apostrophe keeps the trailing space (and a space before that period
// doubled) which tokenizer.perl leaves there. std::invalid_argument unless lang is en, de or fr.
std::string moses_tokenize_line(std::string_view line, const std::string& lang);

// The tokens of moses_tokenize_line: what BLEU against the Multi30K references counts.
std::vector<std::string> moses_tokenize(std::string_view line, const std::string& lang);

}  // namespace attnseq::train
