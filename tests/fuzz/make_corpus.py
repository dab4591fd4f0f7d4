#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the seed corpora of the fuzz targets to tests/fuzz/corpus/<target>/.

Seeds are valid and hostile inputs built at include/scsi/srp.h and
ib_dm_mad.h offsets, each prefixed by the configuration header its target
reads (see the comment at the top of each *_fuzz.cpp).
Run: python3 tests/fuzz/make_corpus.py  (rewrites the directories).
"""
import os
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
GUID = 0x0002C90300A1B2C3
TAG = bytes(range(0x10, 0x18))


def cmd(buf_fmt=0, out_cnt=0, in_cnt=0, attr=0, add=b"", cdb0=0x28):
    b = bytearray(48)
    b[0] = 0x02
    b[5] = buf_fmt
    b[6], b[7] = out_cnt, in_cnt
    b[8:16] = TAG
    b[21] = 5
    b[29] = attr
    b[31] = len(add)
    b[32] = cdb0
    return bytes(b) + add


def direct(va, key, length):
    return struct.pack(">QII", va, key, length)


def indirect(lens, total=None, table_len=None):
    if total is None:
        total = sum(lens)
    if table_len is None:
        table_len = 16 * len(lens)
    hdr = struct.pack(">QII", 0xFEED, 0x99, table_len) + struct.pack(">I", total)
    return hdr + b"".join(direct(0x1000 * (i + 1), 0x40 + i, l)
                          for i, l in enumerate(lens))


def imm(length):
    return struct.pack(">I", length)


def iu_hdr(it_iu_len=8260, imm_off=68, max_desc=255, max_data=1 << 20):
    sel = (it_iu_len - 64) % 8213
    ib = 0 if imm_off == 0 else imm_off - 51
    return struct.pack(">HBBI", sel, ib, max_desc, max_data)


def tsk(func, length=48):
    b = bytearray(length)
    b[0] = 0x01
    b[8:16] = TAG
    b[21] = 7
    b[30] = func
    b[32:40] = bytes(range(0x70, 0x78))
    return bytes(b)


def small(op, length=16):
    b = bytearray(length)
    b[0] = op
    if length >= 16:
        b[8:16] = TAG
    return bytes(b)


def iu_seeds():
    add16 = b"\xcd" * 16
    s = {
        "read_direct": cmd(0x01) + direct(0x123456789000, 0xABCD, 4096),
        "write_direct": cmd(0x10) + direct(0x2000, 0x11, 512),
        "write_indirect3": cmd(0x20, 3, 0) + indirect([4096, 8192, 512]),
        "read_indirect2_addcdb": cmd(0x02, 0, 2, add=add16)
        + indirect([512, 512]),
        "tur": cmd(0, cdb0=0x00),
        "write_imm": cmd(0x30, add=add16) + imm(512) + b"\x5a" * 512,
        "tsk_abort": tsk(0x01),
        "tsk_lun_reset": tsk(0x08),
        "tsk_unknown": tsk(0x03),
        "i_logout": small(0x03),
        "cred_rsp": small(0x41),
        "aer_rsp": small(0x42),
        "rsp_from_initiator": small(0xC1, 36),
        "login_req_again": small(0x00, 64),
        "unknown_op": small(0x55, 32),
        "one_byte": b"\x02",
        # hostile (in-tree 6.1 crash / corruption classes)
        "h_count_gt_table": cmd(0x02, 0, 3) + indirect([512, 512]),
        "h_table_gt_count": cmd(0x02, 0, 1) + indirect([512, 512]),
        "h_table_zero": cmd(0x02, 0, 0) + indirect([], total=0),
        "h_imm_ffffffff": cmd(0x30, add=add16) + imm(0xFFFFFFFF)
        + b"\x00" * 64,
        "h_direct_4g": cmd(0x01) + direct(0, 1, 0xFFFFFFFF),
        "h_direct_1g": cmd(0x01) + direct(0, 1, 0x40000000),
        "h_zero_len": cmd(0x01) + direct(0, 1, 0),
        "h_add_cdb_past_iu": cmd(0x01, add=b"") [:31] + b"\xfc"
        + cmd(0x01)[32:],
        "h_256_desc": cmd(0x02, 0, 0) + indirect([512] * 256),
        "h_sum_wrap": cmd(0x02, 0, 2) + indirect([0x80000000, 0x80000000],
                                                 total=0),
        "h_bidi": cmd(0x11) + direct(0, 1, 512) + direct(0, 1, 512),
    }
    out = {k: iu_hdr() + v for k, v in s.items()}
    out["small_iu_len"] = iu_hdr(it_iu_len=64) + cmd(0x01) + direct(0, 1, 8)
    out["no_imm_negotiated"] = iu_hdr(imm_off=0) + s["write_imm"]
    out["max_desc_2"] = iu_hdr(max_desc=2) + s["write_indirect3"]
    return out


def login_req(it_iu_len=8260, flags=0x80, imm_off=68, fmt=6, guid=GUID):
    b = bytearray(64)
    b[8:16] = TAG
    b[16:20] = struct.pack(">I", it_iu_len)
    b[24:26] = struct.pack(">H", fmt)
    b[26] = flags
    b[28:30] = struct.pack(">H", imm_off)
    b[32:48] = bytes(range(1, 17))
    b[48:64] = struct.pack(">QQ", guid, guid)
    return bytes(b)


def login_req_rdma(it_iu_len=8260, flags=0x80, imm_off=68, fmt=6, guid=GUID):
    b = bytearray(56)
    b[0:8] = TAG
    b[8:10] = struct.pack(">H", fmt)
    b[10] = flags
    b[11] = 0
    b[12:16] = struct.pack(">I", it_iu_len)
    b[16:32] = bytes(range(1, 17))
    b[32:48] = struct.pack(">QQ", guid, guid)
    b[48:50] = struct.pack(">H", imm_off)
    return bytes(b)


def login_cfg(rdma=False, srq=False, disabled=False, max_req=8276):
    flags = int(rdma) | int(srq) << 1 | int(disabled) << 2
    return struct.pack(">BHQ", flags, max_req - 996, GUID)


def login_seeds():
    return {
        "ib_srp": login_cfg() + login_req(),
        "rdma_cm": login_cfg(rdma=True) + login_req_rdma(),
        "multi": login_cfg() + login_req(flags=0x81),
        "srq": login_cfg(srq=True) + login_req(),
        "disabled": login_cfg(disabled=True) + login_req(),
        "iu_too_small": login_cfg() + login_req(it_iu_len=63),
        "iu_too_large": login_cfg() + login_req(it_iu_len=8277),
        "wrong_guid": login_cfg() + login_req(guid=GUID + 1),
        "bad_fmt": login_cfg() + login_req(fmt=0xFFFF),
        "mc_reserved": login_cfg() + login_req(flags=0x83),
        "imm_past_iu": login_cfg() + login_req(imm_off=0xFFFF),
        "short": login_cfg() + login_req()[:40],
        "bad_opcode": login_cfg() + b"\x02" + login_req()[1:],
    }


def mad(method, attr, mod=0):
    b = bytearray(256)
    b[0], b[1], b[2], b[3] = 1, 0x06, 1, method
    b[8:16] = bytes(range(0xB0, 0xB8))
    b[16:18] = struct.pack(">H", attr)
    b[20:24] = struct.pack(">I", mod)
    return bytes(b)


def mad_seeds():
    dev = struct.pack(">QI", GUID, 65536)
    s = {
        "class_port_info": mad(1, 0x01),
        "iou_info": mad(1, 0x10),
        "ioc_profile_1": mad(1, 0x11, 1),
        "ioc_profile_3": mad(1, 0x11, 3),
        "ioc_profile_0": mad(1, 0x11, 0),
        "svc_entries": mad(1, 0x12, 0x00010100),
        "svc_entries_bad": mad(1, 0x12, 0x00030201),
        "set": mad(2, 0x11, 1),
        "trap": mad(5, 0x01),
        "get_resp": mad(0x81, 0x10),
        "unknown_attr": mad(1, 0x99),
        "header_only": mad(1, 0x10)[:24],
    }
    return {k: dev + v for k, v in s.items()}


def main():
    for target, seeds in (("iu_parse", iu_seeds()), ("login", login_seeds()),
                          ("mad", mad_seeds())):
        d = os.path.join(HERE, "corpus", target)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        for name, data in seeds.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        print(f"{target}: {len(seeds)} seeds")


if __name__ == "__main__":
    main()
