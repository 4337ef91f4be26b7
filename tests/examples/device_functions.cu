// The lowered program of rearrange_unit.tile for sm_100a (tilec 0.1.0, --emit=ir).

kernel unit grid (1, 1, 1) block (32, 1, 1)
	param A: f32[2, 3, 4]
	param O1: f32[2, 3, 4]
	param O2: f32[2, 3, 4]
	param O3: f32[2, 3, 4]
{
	if lane_id < 24 {
		let i: i32 = lane_id / 12
		let j: i32 = (lane_id / 4) % 3
		let k: i32 = lane_id % 4
		O1[(k + (i * 12)) + (j * 4)] = A[(k + (i * 12)) + (j * 4)]
		O2[((i * 12) + (j * 4)) + k] = A[((i * 12) + (j * 4)) + k]
		O3[((i * 12) + (j * 4)) + k] = A[((i * 12) + (j * 4)) + k]
	}
}
