// tests/emu/direct.cc: the emulator's traps that the static checks keep .tile programs from reaching.
// tests/emu.sh appends this to the --target=emu output of tests/emu/trap_base.tile (for the emulator's
// code) and runs `./direct CASE` for each case below; each must stop with the emulator's message.

static unsigned tl_direct_tmem[TL_EMU_CELLS];

static __global__ void
tl_direct(int which)
{
	__shared__ TlEmuCta c;
	__shared__ unsigned slot[2];
	tl_emu_begin(&c, tl_direct_tmem);
	if (tl_emu_tid() < 32) {
		switch (which) {
		case 1: // leak: no dealloc before the kernel's end
			tl_emu_alloc(&c, &slot[0], 32, "direct.cc:leak: tcgen05.alloc");
			break;
		case 2: // alloc after relinquish_alloc_permit
			tl_emu_relinquish(&c, "direct.cc:relinquish: tcgen05.relinquish_alloc_permit");
			tl_emu_alloc(&c, &slot[0], 32, "direct.cc:relinquish: tcgen05.alloc");
			break;
		case 3: // ncols grows
			tl_emu_alloc(&c, &slot[0], 32, "direct.cc:grow: tcgen05.alloc");
			tl_emu_alloc(&c, &slot[1], 64, "direct.cc:grow: tcgen05.alloc");
			break;
		case 4: // ncols not a power of two
			tl_emu_alloc(&c, &slot[0], 48, "direct.cc:ncols: tcgen05.alloc");
			break;
		case 5: { // a loaded register read before wait::ld
			unsigned r = tl_emu_rd(1u, 0u, "direct.cc:pending: register 0 of 'r' read", "direct.cc:pending: tcgen05.ld");
			(void)r;
			break;
		}
		case 6: // a collective instruction reached by half the warp (the CPU sees a deadlock)
			if (tl_emu_tid() < 16)
				tl_emu_wait("direct.cc:diverged: tcgen05.wait::ld");
			break;
		case 7: // a register written before wait::ld
			tl_emu_wr(1u, "direct.cc:pending: register 3 of 'r' written", "direct.cc:pending: tcgen05.ld");
			break;
		case 8: // a second allocation while the first holds every column: the hardware would wait forever
			tl_emu_alloc(&c, &slot[0], 512, "direct.cc:full: tcgen05.alloc");
			tl_emu_alloc(&c, &slot[1], 512, "direct.cc:full: tcgen05.alloc");
			break;
		}
	}
	tl_emu_end(&c, "tl_direct");
}

static void
tl_direct_entry(void **args)
{
	tl_direct(*(int *)args[0]);
}

int
main(int argc, char **argv)
{
	int which = argc > 1 ? atoi(argv[1]) : 0;
	void *args[] = {&which};
	static const unsigned grid[3] = {1, 1, 1}, block[3] = {64, 1, 1};
	tl_cpu_launch(grid, block, tl_direct_entry, args);
	printf("direct %d: no trap\n", which);
	return 0;
}
