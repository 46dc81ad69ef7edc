#include "cli/app.hpp"

int
main(int argc, char** argv)
{
    return cachewise::cli::run(argc, argv);
}
