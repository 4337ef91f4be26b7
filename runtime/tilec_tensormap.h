/* tilec_tensormap.h: the one encoding of tilec's TMA tensor maps, used by libtilert's launches (tilert.c) and by the host functions of tilec's headers (emit_cu.c embeds this text). */
#ifndef TILEC_TENSORMAP_H
#define TILEC_TENSORMAP_H

#include <stdint.h>

/* cuTensorMapEncodeTiled with cuda.h's enums passed as int and the map as its 128 bytes: libtilert finds it
   with dlsym, a header's host function passes the driver's own (linked with -lcuda). */
typedef int (*tilec_tensormap_encoder)(void *map, int dtype, unsigned rank, void *base, const uint64_t *dims,
                                       const uint64_t *strides, const uint32_t *box, const uint32_t *element_strides,
                                       int interleave, int swizzle, int l2_promotion, int oob_fill);

/* The map of a tensor at base (16-byte aligned) of rank dimensions dims[] and strides[] in bytes (innermost
   first; strides of dimensions 1 .. rank - 1), read in boxes box[] with swizzle (tilec's SmemSwizzle, which
   numbers as CUtensorMapSwizzle) and data type dtype (CUtensorMapDataType), as tilec's copies assume: every
   element of a box taken (element strides 1), no interleave, L2 promotion of 128 bytes
   (CU_TENSOR_MAP_L2_PROMOTION_L2_128B), elements outside the tensor read as zeros (OOB fill NONE). Returns the
   driver's CUresult. */
static inline int
tilec_tensormap_encode(tilec_tensormap_encoder encode, void *map, int dtype, unsigned rank, void *base,
                       const uint64_t *dims, const uint64_t *strides, const uint32_t *box, int swizzle)
{
	static const uint32_t element_strides[5] = {1, 1, 1, 1, 1};
	return encode(map, dtype, rank, base, dims, strides, box, element_strides, 0, swizzle, 2, 0);
}

#endif
