/* main.c: the entry point of the tilec command; everything else is in driver.c so tests can link it. */
#include "tilec.h"

int
main(int argc, char **argv)
{
	return driver_main(argc, argv);
}
