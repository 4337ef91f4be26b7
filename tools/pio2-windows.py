#!/usr/bin/env python3
"""pio2-windows.py: prints src/mathfn.c's pio2_windows table: for w = -1 .. 13, (2^(8w) * 2/pi) mod 4
in four parts whose lowest bits are 2^-22, 2^-46, 2^-70 and 2^-94, as C hex floats. pi comes from
Machin's formula in integer arithmetic (400 bits), so the table needs nothing but Python."""

S = 400  # bits after the point


def pi_fixed(bits):
    """pi * 2^bits, truncated: 16 atan(1/5) - 4 atan(1/239) with 20 guard bits."""
    one = 1 << (bits + 20)

    def atan_inv(n):
        total, term, k, sign = 0, one // n, 1, 1
        while term:
            total += sign * (term // k)
            term //= n * n
            k += 2
            sign = -sign
        return total

    return (16 * atan_inv(5) - 4 * atan_inv(239)) >> 20


def c_hex(v):
    mant, exp = float.hex(v).split("p")
    mant = mant.rstrip("0").rstrip(".")
    return "%sp%sf" % (mant, exp)


def main():
    two_over_pi = (2 << (2 * S)) // pi_fixed(S)  # 2/pi * 2^S
    for w in range(-1, 14):
        t = two_over_pi << (8 * w) if w >= 0 else two_over_pi >> (-8 * w)
        t %= 4 << S
        parts = []
        for i in range(4):
            low = 22 + 24 * i
            k = t >> (S - low)
            t -= k << (S - low)
            parts.append(c_hex(k * 2.0 ** -low))
        print("\t{%s}," % ", ".join(parts))


main()
