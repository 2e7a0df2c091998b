// scanlab-emu-translate's entry point; all the work is in translate.cpp / driver.cpp.
#include <iostream>

#include "translate.hpp"

int main(int argc, char** argv) { return scanlab::emu::translator_main(argc, argv, std::cout, std::cerr); }
