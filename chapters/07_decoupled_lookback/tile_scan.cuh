// Chapter 07 scans its tiles exactly as chapter 06 does; only the protocol between tiles changes.
#pragma once
#include "../06_chained_scan/tile_scan.cuh"
