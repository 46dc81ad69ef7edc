// The loopback fake provider as a process, for the CLI tests:
//   cachewise_fake_provider PORT_FILE [FAULT...]
// writes its port to PORT_FILE and serves until killed, or for 120 s at most
// so that a test that dies cannot leave it behind. A FAULT is applied to the
// calls in order: "429:1" (status 429, retry-after 1), "500", "slow:3000" (ms),
// "truncated".

#include "fake_provider.hpp"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

int
main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: cachewise_fake_provider PORT_FILE [FAULT...]\n");
        return 2;
    }
    const auto rules = cachewise::ruleset::load_rules(std::nullopt);
    cachewise::test::FakeProvider server(*rules);
    for (int i = 2; i < argc; ++i) {
        const std::string spec = argv[i];
        cachewise::test::Fault f;
        const auto colon = spec.find(':');
        const std::string head = spec.substr(0, colon);
        const std::string tail = colon == std::string::npos ? "" : spec.substr(colon + 1);
        if (head == "slow") {
            f.kind = cachewise::test::Fault::Kind::slow;
            f.delay_ms = std::stoi(tail);
        } else if (head == "truncated") {
            f.kind = cachewise::test::Fault::Kind::truncated;
        } else {
            f.status = std::stoi(head);
            f.retry_after = tail;
        }
        server.push_fault(f);
    }
    {
        const std::string tmp = std::string(argv[1]) + ".tmp";
        std::ofstream(tmp) << server.port() << "\n";
        std::rename(tmp.c_str(), argv[1]);
    }
    std::this_thread::sleep_for(std::chrono::seconds(120));
    return 0;
}
