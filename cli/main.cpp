// d4r-kernel: the command-line tool for d4r-kerneld. Parsing and commands live in d4r_cli_lib;
// this file only wires them to the process (argv, environment, stdio).

#include "cli/commands.hpp"
#include "cli/options.hpp"

#include <algorithm>
#include <iostream>
#include <string>
#include <unistd.h>
#include <vector>

int main(int argc, char** argv)
{
  std::vector<std::string> args(argv + 1, argv + argc);
  d4r::cli::Io io{std::cout, std::cerr, ::isatty(STDIN_FILENO) == 1, [] {
                    std::string line;
                    return std::getline(std::cin, line) ? std::optional<std::string>(line)
                                                        : std::nullopt;
                  }};
  d4r::Expected<d4r::cli::ParsedCommand> parsed =
      d4r::cli::parse_command_line(args, d4r::cli::environment_from_process());
  if (!parsed) {
    // The line did not parse, so --json is looked for by hand to keep the output a JSON document.
    bool json = std::find(args.begin(), args.end(), "--json") != args.end();
    return d4r::cli::report_usage_error(parsed.error(), json, io);
  }
  return d4r::cli::run_command(*parsed, io);
}
