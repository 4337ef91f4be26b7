// The lowered program of mbar_run.tile for sm_100a (tilec 0.1.0, --emit=ir).

kernel ring grid (1, 1, 1) block (128, 1, 1)
	param A: f32[1024]
	param Out: f32[1024]
	param n: i32
{
	shared buf: f32[64]
	shared full: mbarrier[2]
	shared empty: mbarrier[2]
	if warp_id == 0 {
		for s in 0 .. 2 {
			mbarrier.init.shared::cta.b64 [&full[s]], 32u	// init: sets the barrier's expected arrivals; phase 0; in one lane of each warp (elect.sync)
			mbarrier.init.shared::cta.b64 [&empty[s]], 64u	// init: sets the barrier's expected arrivals; phase 0; in one lane of each warp (elect.sync)
		}
	}
	fence.mbarrier_init.release.cluster	// fence_init: publishes the barrier inits before it to the following thread sync
	cta_sync
	let lane: i32 = lane_id
	if warp_id == 1 {
		for k in 0 .. n {
			let s_1: i32 = k % 2
			mbarrier.try_wait.parity.shared::cta.b64 [&empty[s_1]], u32(((k / 2) + 1) % 2) & 1u	// wait: tests whether the phase of that parity has completed, in a loop until it has
			buf[(32 * s_1) + lane] = A[(32 * k) + lane]
			mbarrier.arrive.shared::cta.b64 [&full[s_1]], 1u	// arrive: counts arrivals toward the barrier's current phase
		}
	}
	if warp_id >= 2 {
		for k_1 in 0 .. n {
			let s_2: i32 = k_1 % 2
			mbarrier.try_wait.parity.shared::cta.b64 [&full[s_2]], u32((k_1 / 2) % 2) & 1u	// wait: tests whether the phase of that parity has completed, in a loop until it has
			if warp_id == 2 {
				Out[(32 * k_1) + lane] = buf[(32 * s_2) + lane]
			}
			mbarrier.arrive.shared::cta.b64 [&empty[s_2]], 1u	// arrive: counts arrivals toward the barrier's current phase
		}
	}
}

kernel stuck grid (1, 1, 1) block (64, 1, 1)
	param Out: f32[64]
	param n: i32
{
	shared bar: mbarrier[1]
	if warp_id == 0 {
		mbarrier.init.shared::cta.b64 [&bar[0]], 32u	// init: sets the barrier's expected arrivals; phase 0; in one lane of each warp (elect.sync)
	}
	fence.mbarrier_init.release.cluster	// fence_init: publishes the barrier inits before it to the following thread sync
	cta_sync
	if warp_id == 1 {
		mbarrier.arrive.shared::cta.b64 [&bar[0]], 1u	// arrive: counts arrivals toward the barrier's current phase
	}
	if warp_id == 0 {
		for k in 0 .. n {
			mbarrier.try_wait.parity.shared::cta.b64 [&bar[0]], u32(k % 2) & 1u	// wait: tests whether the phase of that parity has completed, in a loop until it has
		}
	}
	Out[thread_idx.x] = 1.0
}

kernel bytes grid (1, 1, 1) block (64, 1, 1)
	param Out: f32[64]
	param nbytes: i32
{
	shared bar: mbarrier[1]
	if warp_id == 0 {
		mbarrier.init.shared::cta.b64 [&bar[0]], 1u	// init: sets the barrier's expected arrivals; phase 0; in one lane of each warp (elect.sync)
	}
	fence.mbarrier_init.release.cluster	// fence_init: publishes the barrier inits before it to the following thread sync
	cta_sync
	if warp_id == 0 {
		mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [&bar[0]], u32(nbytes)	// expect_tx: adds bytes the current phase waits for; in one lane of each warp (elect.sync)
	}
	if thread_idx.x == 0 {
		mbarrier.arrive.shared::cta.b64 [&bar[0]], 1u	// arrive: counts arrivals toward the barrier's current phase
	}
	mbarrier.try_wait.parity.shared::cta.b64 [&bar[0]], 0u	// wait: tests whether the phase of that parity has completed, in a loop until it has
	Out[thread_idx.x] = 1.0
}
