/* smem_banks.c: the shared-memory bank model: how many wavefronts one warp's access of 1 to 16 bytes per lane
 * takes, and whether a copy's accesses could take them without conflicts in another order per thread. */
#include <string.h>

#include "tilec.h"

/* Shared memory is 32 banks of 4 bytes: word w of the address space is in bank w % 32, and a bank serves
   one word per wavefront (lanes reading the same word share it). A warp's access of 8 bytes a lane is
   served half a warp at a time, one of 16 bytes a quarter warp at a time (a phase: 128 bytes, one word
   per bank at most); narrower ones all 32 lanes at once. */
int
smem_phase_lanes(int bytes)
{
	return bytes <= 4 ? 32 : 128 / bytes;
}

int
smem_wavefronts(const int64_t addr[32], int bytes, int *degree)
{
	int lanes = smem_phase_lanes(bytes), words = bytes < 4 ? 1 : bytes / 4, total = 0;
	*degree = 0;
	for (int p = 0; p < 32; p += lanes) {
		/* the distinct words of the phase, then the most of them in one bank */
		int64_t seen[128];
		int nseen = 0, per_bank[32] = {0}, phase = 0;
		for (int l = p; l < p + lanes; l++) {
			if (addr[l] < 0)
				continue;
			for (int w = 0; w < words; w++) {
				int64_t word = addr[l] / 4 + w;
				bool dup = false;
				for (int i = 0; i < nseen && !dup; i++)
					dup = seen[i] == word;
				if (dup)
					continue;
				seen[nseen++] = word;
				int b = (int)(word % 32);
				if (++per_bank[b] > phase)
					phase = per_bank[b];
			}
		}
		total += phase;
		if (phase > *degree)
			*degree = phase;
	}
	return total;
}

/* Of bytes >= 4: which of the 128 / bytes groups of banks an aligned access of a phase occupies. */
int
smem_bank_unit(int64_t addr, int bytes)
{
	return (int)(addr / bytes % (128 / bytes));
}

/* A set of accesses of one width in one phase of a warp, each lane's in some order: with unit_load[u]
   the accesses (of distinct addresses) in bank group u and most the most accesses of one lane, an
   order of each lane's accesses in which no access conflicts exists exactly when no group holds more
   than most of them (a bipartite multigraph of lanes and groups has an edge colouring with as many
   colours as its largest degree, König; a colour is one instruction). */
bool
smem_conflict_free_order(const int *unit_load, int units, int most)
{
	for (int u = 0; u < units; u++)
		if (unit_load[u] > most)
			return false;
	return true;
}
