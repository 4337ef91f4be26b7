#!/usr/bin/env python3
"""smem-vector-check.py EMU.cu CUDA.cu: whether the vector accesses of shared arrays in tilec's CUDA C
(CUDA.cu: `*(uintN *)&S[I] = make_uintN(r[a], ...)` and `{ const uintN tl_v = *(const uintN *)&S[I];
q[a] = tl_v.x; ... }`) move each register element to and from the element that the emu target's
element-by-element code of the same program (EMU.cu: `S[I] = ...r[a]...` and `q[a] = ...S[I]...`, the
high half of a 16-bit pair marked `>> 16` / `<< 16`) gives it, for every thread of the block, and whether
each vector is aligned to its size; and the same of each stmatrix / ldmatrix x4
(`asm volatile("stmatrix...`), whose lanes' row addresses and registers the PTX ISA's m8n8 fragment maps
to elements. Indices are evaluated with threadIdx.x as the only variable (the copies of straight-line
kernels, as tests/golden/smem_copy_frag_*.tile), kernel by kernel; a vector whose index holds anything else
is a difference. Prints the counts of vector accesses, matrix instructions and elements
compared; exit status 0 when all agree, 1 at the first difference, 2 on bad usage."""
import re
import sys

ELEM = {'float': 4, 'unsigned short': 2, 'unsigned char': 1, 'unsigned': 4}


def bracket(s, i):
    """The text inside the brackets that open at s[i], and the index of the closing one."""
    depth = 0
    for j in range(i, len(s)):
        if s[j] == '[':
            depth += 1
        elif s[j] == ']':
            depth -= 1
            if depth == 0:
                return s[i + 1:j], j
    raise ValueError(s)


def value(index, thread):
    text = index.replace('(int)threadIdx.x', str(thread))
    if not re.fullmatch(r'[0-9()+*/%^&|<> -]*', text):
        return None
    return eval(text.replace('/', '//'))


def shared_arrays(text):
    return {m.group(2): ELEM[m.group(1)]
            for m in re.finditer(r'__shared__ __align__\(\d+\) (float|unsigned short|unsigned char|unsigned) (\w+)\[', text)}


def element_moves(text, arrays):
    """(direction, register array, word, half) -> the index expression of the emu's element access."""
    moves = {}
    for line in (l.strip() for l in text.split('\n')):
        for name in arrays:
            if line.startswith(name + '['):
                index, end = bracket(line, len(name))
                reg = re.search(r'\b(\w+)\[(\d+)\]( >> 16)?', line[end + 1:])
                if reg:
                    moves[('st', reg.group(1), int(reg.group(2)), 1 if reg.group(3) else 0)] = index
            at = line.find(name + '[')
            dst = re.match(r'(\w+)\[(\d+)\] = ', line)
            if at > 0 and dst and dst.group(1) not in arrays:
                index, end = bracket(line, at + len(name))
                half = 1 if '<< 16' in line[end:] else 0
                moves[('ld', dst.group(1), int(dst.group(2)), half)] = index
    return moves


TOKEN = re.compile(r'\s*(?:(\d+)u?|(threadIdx\.x)|\((int|unsigned)\)|(<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^<>?:()]))')
BINARY = [('||',), ('&&',), ('|',), ('^',), ('&',), ('==', '!='), ('<', '>', '<=', '>='), ('<<', '>>'), ('+', '-'),
          ('*', '/', '%')]


def c_value(text, thread):
    """The value of a C index expression of threadIdx.x (integers, casts, ?:) for one thread; None: other."""
    tokens, pos = [], 0
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            return None if text[pos:].strip() else _parse(tokens, thread)
        tokens.append(('n', int(m.group(1))) if m.group(1) else ('t', 0) if m.group(2) else ('c', 0) if m.group(3)
                      else ('o', m.group(4)))
        pos = m.end()
    return _parse(tokens, thread)


def _parse(tokens, thread):
    at = [0]

    def peek():
        return tokens[at[0]] if at[0] < len(tokens) else ('e', None)

    def unary():
        kind, v = peek()
        at[0] += 1
        if kind == 'n':
            return v
        if kind == 't':
            return thread
        if kind == 'c':
            return unary()
        if (kind, v) == ('o', '-'):
            return -unary()
        if (kind, v) == ('o', '('):
            x = ternary()
            at[0] += 1
            return x
        raise ValueError(v)

    def binary(level):
        if level == len(BINARY):
            return unary()
        x = binary(level + 1)
        while peek()[0] == 'o' and peek()[1] in BINARY[level]:
            op = peek()[1]
            at[0] += 1
            y = binary(level + 1)
            x = {'||': lambda: int(bool(x or y)), '&&': lambda: int(bool(x and y)), '|': lambda: x | y,
                 '^': lambda: x ^ y, '&': lambda: x & y, '==': lambda: int(x == y), '!=': lambda: int(x != y),
                 '<': lambda: int(x < y), '>': lambda: int(x > y), '<=': lambda: int(x <= y),
                 '>=': lambda: int(x >= y), '<<': lambda: x << y, '>>': lambda: x >> y, '+': lambda: x + y,
                 '-': lambda: x - y, '*': lambda: x * y, '/': lambda: x // y, '%': lambda: x % y}[op]()
        return x

    def ternary():
        c = binary(0)
        if peek() == ('o', '?'):
            at[0] += 1
            a = ternary()
            at[0] += 1
            b = ternary()
            return a if c else b
        return c

    try:
        return ternary()
    except (ValueError, IndexError, ZeroDivisionError):
        return None


def matrix_moves(text, arrays):
    """The stmatrix / ldmatrix x4 of the CUDA C: (kind, trans, index of the row this lane gives, [(reg, word)])."""
    out = []
    for line in (l.strip() for l in text.split('\n')):
        m = re.match(r'asm volatile\("(st|ld)matrix\.sync\.aligned\.m8n8\.x4(\.trans)?\.shared\.b16 ', line)
        if not m:
            continue
        for name in arrays:
            at = line.find('&' + name + '[')
            if at >= 0:
                index, _ = bracket(line, at + 1 + len(name))
                regs = re.findall(r'"=?r"\((\w+)\[(\d+)\]\)', line)
                out.append((m.group(1), bool(m.group(2)), index, [(r, int(w)) for r, w in regs]))
    return out


def check_matrices(emu_moves, matrices, threads):
    """The PTX ISA's fragment of each matrix instruction against the emu's element placement: lane l's word
    k holds matrix k's row l / 4, columns 2 (l % 4) + h (.trans: column l / 4 of rows 2 (l % 4) + h), and
    lane 8k + r gives the address of row r of matrix k (16-byte aligned). (instructions, elements) or a sentence."""
    compared = 0
    for kind, trans, index, regs in matrices:
        if len(regs) != 4:
            return f'{kind}matrix with {len(regs)} registers'
        for warp in range(threads // 32):
            rows = [c_value(index, warp * 32 + l) for l in range(32)]
            if None in rows:
                return f'not read: {index}'
            if any(r * 2 % 16 for r in rows):
                return f'warp {warp}: a {kind}matrix row address is not 16-byte aligned'
            for lane in range(32):
                t = warp * 32 + lane
                for k, (reg, word) in enumerate(regs):
                    for half in range(2):
                        have = (rows[8 * k + 2 * (lane % 4) + half] + lane // 4 if trans
                                else rows[8 * k + lane // 4] + 2 * (lane % 4) + half)
                        key = (kind, reg, word, half)
                        if key not in emu_moves:
                            return f'{reg}[{word}] half {half}: no element {kind} in the emu code'
                        want = c_value(emu_moves[key], t)
                        if want != have:
                            return f'thread {t}: {kind}matrix {reg}[{word}] half {half} at element {have}, the emu code at {want}'
                        compared += 1
    return len(matrices), compared


def vector_moves(text, arrays):
    out = []
    for line in (l.strip() for l in text.split('\n')):
        for name, size in arrays.items():
            store = re.match(r'\*\(uint(\d)? \*\)&' + name + r'\[', line)
            load = re.match(r'\{ const uint(\d)? tl_v = \*\(const uint\d? \*\)&' + name + r'\[', line)
            if not store and not load:
                continue
            index, end = bracket(line, line.index(name + '[') + len(name))
            if store:
                regs = re.findall(r'(\w+)\[(\d+)\]', line[end:])
            else:
                regs = re.findall(r'(\w+)\[(\d+)\] = tl_v', line[end:])
            out.append(('st' if store else 'ld', size, index, [(r, int(w)) for r, w in regs]))
    return out


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    emu, cuda = (open(p).read().split('extern "C" __global__')[1:] for p in sys.argv[1:])
    if len(emu) != len(cuda):
        print(f'{len(cuda)} kernels in the CUDA C, {len(emu)} in the emu code')
        return 1
    vectors = matrices = compared = 0
    for emu_kernel, cuda_kernel in zip(emu, cuda):
        result = check_kernel(emu_kernel, cuda_kernel)
        if isinstance(result, str):
            print(result)
            return 1
        vectors += result[0]
        compared += result[1]
        block = re.search(r'__launch_bounds__\((\d+)\)', cuda_kernel)
        arrays = shared_arrays(cuda_kernel)
        result = check_matrices(element_moves(emu_kernel, arrays), matrix_moves(cuda_kernel, arrays),
                                int(block.group(1)) if block else 1)
        if isinstance(result, str):
            print(result)
            return 1
        matrices += result[0]
        compared += result[1]
    print(f'{vectors} vector accesses, {matrices} matrix instructions, {compared} elements agree')
    return 0


def check_kernel(emu, cuda):
    """(vector accesses, elements compared) of one kernel, or the first difference as a sentence."""
    block = re.search(r'__launch_bounds__\((\d+)\)', cuda)
    threads = int(block.group(1)) if block else 1
    arrays = shared_arrays(cuda)
    moves = element_moves(emu, arrays)
    vectors = vector_moves(cuda, arrays)
    compared = 0
    for kind, size, index, regs in vectors:
        per_word = 4 // size
        for t in range(threads):
            base = value(index, t)
            if base is None:
                return f'not read: {index}'
            if (base * size) % (4 * len(regs)):
                return f'thread {t}: {kind} of {len(regs)} words at element {base} is not aligned'
            for i, (reg, word) in enumerate(regs):
                for half in range(per_word):
                    key = (kind, reg, word, half)
                    if key not in moves:
                        return f'{reg}[{word}] half {half}: no element {kind} in the emu code'
                    want = value(moves[key], t)
                    if want != base + i * per_word + half:
                        return (f'thread {t}: {kind} {reg}[{word}] half {half} at element {base + i * per_word + half}, '
                                f'the emu code at {want}')
                    compared += 1
    return len(vectors), compared


if __name__ == '__main__':
    sys.exit(main())
