// Peak resident memory of this process in MB: /proc natively (peak_rss_proc.cpp), node's
// process.resourceUsage() under Emscripten (peak_rss_node.cpp); CMake picks one.
#pragma once

namespace attnlab_bench {

double PeakRssMb();

}  // namespace attnlab_bench
