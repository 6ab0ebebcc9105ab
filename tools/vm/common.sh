# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash disable=SC2034 # sets variables for the scripts that source it
#
# Sourced by tools/vm-run and tools/vm/*: arch names, paths, packages.

VM_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VM_BUILD=${SFRAME_BUILD:-$VM_REPO/build}

# vm_arch ARCH: sets VM_ARCH VM_TRIPLE VM_CC VM_LIBDIR VM_INTERP VM_QEMU VM_PKGS
vm_arch() {
	case "$1" in
	x86_64|amd64|x86)
		VM_ARCH=x86_64 VM_TRIPLE=x86_64-linux-gnu VM_CC=gcc
		VM_LIBDIR=/lib/x86_64-linux-gnu VM_INTERP=/lib64/ld-linux-x86-64.so.2
		VM_QEMU=qemu-system-x86_64
		VM_PKGS="qemu-system-x86 qemu-system-data gcc libc6-dev cpio" ;;
	arm64|aarch64)
		VM_ARCH=arm64 VM_TRIPLE=aarch64-linux-gnu VM_CC=aarch64-linux-gnu-gcc
		VM_LIBDIR=/usr/aarch64-linux-gnu/lib VM_INTERP=/lib/ld-linux-aarch64.so.1
		VM_QEMU=qemu-system-aarch64
		VM_PKGS="qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross cpio" ;;
	s390x|s390)
		VM_ARCH=s390x VM_TRIPLE=s390x-linux-gnu VM_CC=s390x-linux-gnu-gcc
		VM_LIBDIR=/usr/s390x-linux-gnu/lib VM_INTERP=/lib/ld64.so.1
		VM_QEMU=qemu-system-s390x
		VM_PKGS="qemu-system-misc qemu-system-data gcc-s390x-linux-gnu libc6-dev-s390x-cross cpio" ;;
	*)
		echo "unknown arch '$1' (x86_64, arm64, s390x)" >&2
		return 1 ;;
	esac
	VM_DIR=$VM_BUILD/vm/$VM_ARCH
}

# vm_system_qemu ACCEL: sets VM_SYS_QEMU (QEMU's machine and CPU options)
# and VM_SYS_APPEND (the console and what the kernel needs under ACCEL) for
# a guest of the Debian system (tools/vm/system-run, tools/system/mkimage);
# vm_arch first.
vm_system_qemu() {
	local accel=$1 cpu
	case "$VM_ARCH" in
	x86_64)
		cpu=qemu64
		VM_SYS_QEMU=(-machine pc)
		VM_SYS_APPEND="console=ttyS0"
		# Under TCG with two vCPUs the kernel's enabling of the
		# __sched_clock_stable static key late in boot (text_poke_bp()
		# on the start of sched_clock_cpu(), which both CPUs run all the
		# time) now and then leaves one vCPU at the int3 after the patch
		# is done: "Oops: int3" in sched_clock_cpu+0x9, a panic before
		# user space (2 boots in about 20, no SFrame code on the path).
		# A TSC marked unstable from the start never enables it.
		[ "$accel" = tcg ] && VM_SYS_APPEND+=" tsc=unstable" ;;
	arm64)
		# PAC as the e2e guests have it (tools/vm-run)
		cpu=max,pauth-impdef=on
		VM_SYS_QEMU=(-machine virt)
		VM_SYS_APPEND="console=ttyAMA0" ;;
	s390x)
		cpu=qemu
		VM_SYS_QEMU=(-machine s390-ccw-virtio)
		VM_SYS_APPEND="console=ttyS0" ;;
	esac
	[ "$accel" = kvm ] && cpu=host
	VM_SYS_QEMU+=(-accel "$accel" -cpu "$cpu")
}

# vm_need_pkgs PKG...: installs missing Debian packages, or says how to
# when not root.
vm_need_pkgs() {
	"$VM_REPO/tools/deps" "$@" || exit 1
}

# Console lines that mean the kernel had a problem (a Perl regex for the x
# flag, so its spaces are escaped): tools/vm-run and tools/vm/system-run
# fail the run on any.  No "general protection fault": the kernel's own is
# an "Oops: general protection fault" line, and the bare words also end
# the "traps:" line a user program's fault prints, which is no splat.
VM_PROBLEM_RE='Kernel\ panic\ -\ not\ syncing|\bOops\b|\bBUG:|kernel\ BUG\ at|
	\bWARNING:|Unable\ to\ handle\ kernel|Internal\ error:|
	\bUBSAN:|detected\ stall|
	INFO:\ task\ .*\ blocked\ for\ more\ than|
	possible\ recursive\ locking|inconsistent\ lock\ state|
	suspicious\ RCU\ usage|stack\ overflow|stack-protector'

# vm_problems LOG: print the first 5 problem lines of a console log
# (tools/vm-run's own @@SFVM frames left out).
vm_problems() {
	VM_PROBLEM_RE=$VM_PROBLEM_RE perl -ne '
		BEGIN { $re = qr/$ENV{VM_PROBLEM_RE}/x; $n = 0 }
		next if /^\@\@SFVM /;
		if ($_ =~ $re && $n++ < 5) { chomp; print "$_\n" }
	' "$1"
}
