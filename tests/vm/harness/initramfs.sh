# The guests' base initramfs, one builder for both images: the stock one
# (build-image.sh) and the check-debug kernel's overlay
# (build-debug-image.sh). Sourced after common.sh, not run. Part of both
# images' hashes: an edit here rebuilds the cached images.
# shellcheck shell=bash

# build_initramfs MODROOT RELEASE OUT: busybox, guest/initramfs-init as
# /init, and the virtio_pci, virtio_blk and ext4 modules of kernel RELEASE
# (MODROOT/lib/modules/RELEASE, depmod'ed) with their dependencies, in load
# order in /modules.order; written to OUT as a gzip'ed newc cpio. The tree
# is staged in OUT's directory (initramfs/) and removed afterwards.
build_initramfs() {
	local modroot=$1 rel=$2 out=$3
	local mods="$modroot/lib/modules/$rel" ir busybox
	ir="$(dirname "$out")/initramfs"
	[ -x /bin/busybox ] && busybox=/bin/busybox || busybox=$(command -v busybox)
	rm -rf "$ir"
	mkdir -p "$ir"/{bin,dev,proc,sys,newroot,payload,lib/modules}
	cp "$busybox" "$ir/bin/busybox"
	cp "$VM_DIR/guest/initramfs-init" "$ir/init"; chmod 755 "$ir/init"
	: >"$ir/modules.order"
	local m ko path
	for m in virtio_pci virtio_blk ext4; do
		modprobe -d "$modroot" -S "$rel" --show-depends "$m" | awk '$1=="insmod"{print $2}'
	done | awk '!seen[$0]++' | while read -r ko; do
		path=${ko#"$mods"/}
		mkdir -p "$ir/lib/modules/$(dirname "$path")"
		cp "$ko" "$ir/lib/modules/$path"
		echo "$path" >>"$ir/modules.order"
	done
	log "initramfs modules: $(tr '\n' ' ' <"$ir/modules.order")"
	(cd "$ir" && find . | cpio -o -H newc --quiet | gzip -1) >"$out"
	rm -rf "$ir"
}
