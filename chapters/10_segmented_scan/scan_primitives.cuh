// The given warp, block and device scans of chapters 08-10 live with chapter 08; this forwarding
// header puts them on this chapter's include path (the chapter folder is on it for the exercise
// and the solution alike).
#pragma once
#include "../08_stream_compaction/scan_primitives.cuh"
