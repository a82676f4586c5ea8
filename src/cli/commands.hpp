// The CLI's subcommands; each takes its arguments (after the command name) and returns an exit code.
#pragma once
#include <string>
#include <vector>

namespace attnseq::cli {
int translate(const std::vector<std::string>& args);
int info(const std::vector<std::string>& args);
int train_cmd(const std::vector<std::string>& args);
int eval_cmd(const std::vector<std::string>& args);
int quantize_cmd(const std::vector<std::string>& args);
int average_cmd(const std::vector<std::string>& args);
int tokenize_cmd(const std::vector<std::string>& args);
}  // namespace attnseq::cli
