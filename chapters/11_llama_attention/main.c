#include "common/program/program.h"
int main(void) { return 0; }
