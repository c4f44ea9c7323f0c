"""The GGUF header check on files written here with llama.cpp's own gguf writer: sizes of tensor types
as llama.cpp defines them, and the messages a user reads for a cut file."""

from __future__ import annotations

import struct

import gguf
import numpy as np
import pytest

from mmdocsum_desktop.engines.gguf_check import check_chat_model, read_gguf_info
from mmdocsum_desktop.errors import ModelFormatError

BLOCKS = 1024  # Q8_1: 32 weights in 40 bytes a block


def q8_1_model(path):
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_name("tiny-q8_1")
    writer.add_context_length(256)
    writer.add_embedding_length(32)
    # the bytes of BLOCKS rows of one block each (the writer turns the byte shape into 32 weights a row)
    writer.add_tensor("token_embd.weight", np.zeros((BLOCKS, 40), dtype=np.uint8),
                      raw_dtype=gguf.GGMLQuantizationType.Q8_1)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def test_a_whole_file_reads_with_its_header(tmp_path):
    info = read_gguf_info(q8_1_model(tmp_path / "tiny.gguf"))
    assert (info.version, info.architecture, info.name, info.tensor_count) == (3, "llama", "tiny-q8_1", 1)
    assert (info.context_length, info.embedding_length) == (256, 32)
    assert info.data_end == info.file_size  # the tensor ends where the file does: sized as llama.cpp sizes it
    check_chat_model(info)


def test_cut_tensor_data_is_truncated_with_the_sizes(tmp_path):
    whole = q8_1_model(tmp_path / "tiny.gguf").read_bytes()
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(whole[:-2000])  # less than a table with Q8_1 at 36 bytes a block would notice
    with pytest.raises(ModelFormatError) as raised:
        read_gguf_info(cut)
    assert str(raised.value) == (f"cut.gguf is truncated: its tensors need {len(whole) / 1e6:.1f} MB but the file "
                                 f"has {(len(whole) - 2000) / 1e6:.1f} MB (the download or copy did not finish)")


def test_a_cut_header_and_a_bad_version_say_so(tmp_path):
    whole = q8_1_model(tmp_path / "tiny.gguf").read_bytes()
    header = tmp_path / "header.gguf"
    header.write_bytes(whole[:60])
    with pytest.raises(ModelFormatError, match=r"^header\.gguf is truncated: its header ends early \(is the download complete\?\)$"):
        read_gguf_info(header)
    future = tmp_path / "future.gguf"
    future.write_bytes(b"GGUF" + struct.pack("<I", 9) + whole[8:])
    with pytest.raises(ModelFormatError, match=r"^future\.gguf: GGUF version 9 is not supported \(2 or 3 expected\)$"):
        read_gguf_info(future)
    damaged = tmp_path / "damaged.gguf"
    damaged.write_bytes(whole[:8] + struct.pack("<QQ", 1, 2**40) + whole[24:])
    with pytest.raises(ModelFormatError, match="damaged: implausible header counts"):
        read_gguf_info(damaged)
