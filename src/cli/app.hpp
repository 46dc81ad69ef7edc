#pragma once

namespace cachewise::cli {

// The whole command line: parses, runs one command, and is the single place
// where Error is caught and turned into a message and an exit status.
int run(int argc, char** argv);

} // namespace cachewise::cli
