// tests/emu/cluster.cc: the emulator's cluster model (runtime/tilec_emu.h, "clusters") through its functions,
// as TMA multicast and the CTA pair use it. tests/emu.sh appends this to the --target=emu output of
// tests/golden/cluster_run.tile (for the emulator's code, mbarriers included) and runs `./cluster CASE`.
// Each CTA of a cluster writes one value per thread into the shared buffer of the CTA of the next rank and
// arrives on that CTA's barrier (count 64: the 64 threads of the previous CTA); after its own barrier's
// phase 0 completes it reads what the previous CTA wrote; after a cluster_sync it reads the next CTA's
// buffer again (what it wrote there itself). Thread 0 records the rank, the cluster's size and the CTA's
// tensor memory (its cells' place among the cluster's). main checks every value against the grid's
// arithmetic and prints one PASS or FAIL line. Case 1 leaves out one remote arrival: a deadlock report.

static unsigned tl_cluster_tmem[TL_CPU_CLUSTER_MAX * TL_EMU_CELLS];
enum { TL_CLUSTER_THREADS = 64, TL_CLUSTER_BLOCKS = 16 };
static float tl_cluster_got[TL_CLUSTER_BLOCKS * TL_CLUSTER_THREADS], tl_cluster_back[TL_CLUSTER_BLOCKS * TL_CLUSTER_THREADS];
static unsigned tl_cluster_info[TL_CLUSTER_BLOCKS];

static __global__ void
tl_cluster(int which)
{
	__shared__ TlEmuCta c;
	__shared__ float buf[TL_CLUSTER_THREADS];
	__shared__ unsigned long long bar[1];
	tl_emu_begin(&c, tl_cluster_tmem);
	unsigned rank = tl_emu_cluster_rank(), n = tl_emu_cluster_ctas(), next = (rank + 1) % n;
	int t = tl_emu_tid();
	unsigned block = blockIdx.x + gridDim.x * blockIdx.y;
	if (t == 0)
		tl_emu_mbar_init(bar, "bar", 0, TL_CLUSTER_THREADS, "cluster.cc: mbarrier.init");
	tl_emu_cluster_sync();
	tl_emu_cta_smem(next, buf)[t] = (float)(1000 * block + t);
	if (which != 1 || t != 5)
		tl_emu_mbar_arrive_cta(bar, next, "bar", 0, 1, "cluster.cc: remote arrive");
	tl_emu_mbar_wait(bar, "bar", 0, 0, "cluster.cc: mbarrier.wait");
	tl_cluster_got[TL_CLUSTER_THREADS * block + t] = buf[t];
	tl_emu_cluster_sync();
	tl_cluster_back[TL_CLUSTER_THREADS * block + t] = tl_emu_cta_smem(next, buf)[t];
	tl_emu_cluster_sync(); // no CTA leaves while another reads its buffer
	if (t == 0)
		tl_cluster_info[block] = rank | n << 8 | (unsigned)((c.tmem - tl_cluster_tmem) / TL_EMU_CELLS) << 16;
	tl_emu_end(&c, "tl_cluster");
}

static void
tl_cluster_entry(void **args)
{
	tl_cluster(*(int *)args[0]);
}

// The grid (4, 4) in clusters of (2, 2) (which 2) or (8, 2) in clusters of (4, 1); rank x fastest.
int
main(int argc, char **argv)
{
	int which = argc > 1 ? atoi(argv[1]) : 0;
	void *args[] = {&which};
	const unsigned block[3] = {TL_CLUSTER_THREADS, 1, 1};
	const unsigned grid_a[3] = {8, 2, 1}, cluster_a[3] = {4, 1, 1}, grid_b[3] = {4, 4, 1}, cluster_b[3] = {2, 2, 1};
	const unsigned *grid = which == 2 ? grid_b : grid_a, *cluster = which == 2 ? cluster_b : cluster_a;
	tl_cpu_launch_cluster(grid, block, cluster, tl_cluster_entry, args);
	unsigned n = cluster[0] * cluster[1];
	for (unsigned y = 0; y < grid[1]; y++)
		for (unsigned x = 0; x < grid[0]; x++) {
			unsigned b = x + grid[0] * y, rank = x % cluster[0] + cluster[0] * (y % cluster[1]);
			unsigned prev = (rank + n - 1) % n, x0 = x - x % cluster[0], y0 = y - y % cluster[1];
			unsigned pb = x0 + prev % cluster[0] + grid[0] * (y0 + prev / cluster[0]);
			unsigned want = rank | n << 8 | rank << 16;
			if (tl_cluster_info[b] != want) {
				printf("FAIL emu/cluster/%d: block (%u, %u): rank %u of %u, tensor memory %u; expected rank %u of %u, "
				       "tensor memory %u\n", which, x, y, tl_cluster_info[b] & 255, tl_cluster_info[b] >> 8 & 255,
				       tl_cluster_info[b] >> 16, rank, n, rank);
				return 1;
			}
			for (unsigned t = 0; t < TL_CLUSTER_THREADS; t++) {
				float got = tl_cluster_got[TL_CLUSTER_THREADS * b + t], back = tl_cluster_back[TL_CLUSTER_THREADS * b + t];
				if (got != (float)(1000 * pb + t) || back != (float)(1000 * b + t)) {
					printf("FAIL emu/cluster/%d: block (%u, %u), thread %u read %g from its buffer and %g from the next "
					       "CTA's; expected %g and %g\n", which, x, y, t, (double)got, (double)back,
					       (double)(1000 * pb + t), (double)(1000 * b + t));
					return 1;
				}
			}
		}
	printf("PASS emu/cluster/%d: %u x %u blocks in clusters of %u x %u\n", which, grid[0], grid[1], cluster[0], cluster[1]);
	return 0;
}
