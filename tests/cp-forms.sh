#!/bin/sh
# cp-forms.sh TILEC: the 36 tcgen05.cp forms through the command line. For each form of the golden
# tests/data/tcgen05_cp_images.tsv (written from the PTX ISA, not by tilec): `tilec --print-image` of
# its name spells it back the same and prints the golden's lanes and columns for every row and chunk;
# then one PTX kernel issuing every form as tilec spells it (a register TMEM address, a 64-bit
# descriptor) must assemble with `ptxas -arch=ARCH` for each target of TCGEN05.md 10.1 (SKIP without
# ptxas). A form the golden lacks, refused with status 2, closes the list. One PASS/FAIL line each.
runner=cp-forms
. "$(dirname "$0")/runner.sh"
runner_work 60
golden=tests/data/tcgen05_cp_images.tsv
forms=$(grep -v '^#' "$golden" | cut -f1 | uniq)
[ "$(echo "$forms" | wc -l)" -eq 36 ] || { echo "FAIL cp-forms/golden: $golden does not hold 36 forms"; exit 1; }
for form in $forms; do
	name=cp-forms/print-image/$form
	if ! "$tilec" --print-image "$form" >"$tmp/out" 2>"$tmp/err"; then
		fail "tilec --print-image $form failed"
		show "$tmp/err"
		continue
	fi
	head -n 1 "$tmp/out" | sed 's/: [0-9][0-9]* rows .*//' >"$tmp/spelt"
	# "row R: c0=lanes A,B cols 0..3 c1=..." -> one "FORM\tR\tC\tLANES\tCOLS" line per chunk, as the golden
	sed -n '2,$p' "$tmp/out" | awk -v f="$form" '{
		r = $2; sub(":", "", r)
		for (i = 3; i <= NF; i += 4) { c = $i; sub("=lanes", "", c); sub("c", "", c); printf "%s\t%s\t%s\t%s\t%s\n", f, r, c, $(i + 1), $(i + 3) }
	}' >"$tmp/got"
	awk -F '\t' -v f="$form" '$1 == f' "$golden" >"$tmp/want"
	if [ "$(cat "$tmp/spelt")" != "$form" ]; then
		fail "spelt '$(cat "$tmp/spelt")'"
	elif ! cmp -s "$tmp/got" "$tmp/want"; then
		fail "lanes or columns differ from $golden"
		diff "$tmp/want" "$tmp/got" | head -n 10 | sed 's/^/    /'
	else
		echo "PASS $name"
	fi
	echo "$form" >>"$tmp/forms"
done
name=cp-forms/refused
"$tilec" --print-image tcgen05.cp.cta_group::1.64x128b.warpx4 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 2 ] || ! grep -q "is not a multicast of 64x128b" "$tmp/err"; then
	fail "64x128b.warpx4: status $rc (want 2) or no reason"
	show "$tmp/err"
else
	echo "PASS $name"
fi

ptxas=
if nvcc=$(sh tools/find-nvcc.sh); then
	ptxas=$(dirname "$nvcc")/ptxas
fi
if [ ! -x "$ptxas" ]; then
	echo "SKIP cp-forms/ptxas: no ptxas"
	exit $failed
fi
# the PTX ISA version tilec declares for the target, from a PTX file of its own
printf 'kernel v(A: f32[32], Out: f32[32]) launch(grid = 1, block = 32)\n{\n    Out[thread_idx.x] = A[thread_idx.x];\n}\n' >"$tmp/v.tile"
for arch in sm_100a sm_103a sm_110a; do
	name=cp-forms/ptxas/$arch
	"$tilec" --emit=ptx -arch="$arch" -o "$tmp/v.ptx" "$tmp/v.tile" 2>"$tmp/log"
	version=$(sed -n 's/^\.version //p' "$tmp/v.ptx" 2>/dev/null)
	if [ -z "$version" ]; then
		fail "no .version in tilec's PTX for $arch"
		show "$tmp/log"
		continue
	fi
	# a kernel mixes no cta_group::1 with ::2 (ptxas refuses that): one kernel per cta_group
	{
		printf '.version %s\n.target %s\n.address_size 64\n' "$version" "$arch"
		for group in 1 2; do
			printf '\n.visible .entry cp_forms_%s()\n{\n' "$group"
			printf '\t.reg .b32 %%taddr;\n\t.reg .b64 %%desc;\n\tmov.b32 %%taddr, 0;\n\tmov.b64 %%desc, 0;\n'
			grep "cta_group::$group\\." "$tmp/forms" | while read -r form; do
				printf '\t%s [%%taddr], %%desc;\n' "$form"
			done
			printf '\tret;\n}\n'
		done
	} >"$tmp/forms.ptx"
	if "$ptxas" -arch="$arch" -o "$tmp/forms.cubin" "$tmp/forms.ptx" >"$tmp/log" 2>&1 && [ ! -s "$tmp/log" ] &&
		[ "$(grep -c 'tcgen05\.cp' "$tmp/forms.ptx")" -eq 36 ]; then
		echo "PASS $name"
	else
		fail "ptxas -arch=$arch refused a form tilec spells"
		show "$tmp/log"
	fi
done
exit $failed
