// Which GPU architectures a CUDA library carries code for, read from its ELF `.nv_fatbin`
// section without the CUDA toolkit: machine code (SASS, "sm_90") runs as is, PTX ("compute_90")
// is compiled by the driver at first load. node-llama-cpp 3.22.1's prebuilt ggml-cuda holds SASS
// for sm_86/89/120/121 and PTX for 75/80/90, so an H100 (9.0) compiles it on first use.
import { open, type FileHandle } from "node:fs/promises";

export interface CudaArchitectures {
  /** Architectures with machine code, as sm numbers (86 = compute capability 8.6). */
  sass: number[];
  /** Architectures with PTX, which the driver compiles for a newer device at first load. */
  ptx: number[];
}

const FATBIN_MAGIC = 0xba55ed50;
const ENTRY_PTX = 1;
const ENTRY_ELF = 2;
const SECTION_NAME = ".nv_fatbin";

/** The architectures in the file's `.nv_fatbin`; undefined when it is not an ELF with one. */
export async function readCudaArchitectures(path: string): Promise<CudaArchitectures | undefined> {
  const file = await open(path, "r");
  try {
    const section = await findSection(file, SECTION_NAME);
    if (section === undefined) return undefined;
    return await readFatbinEntries(file, section.offset, section.offset + section.size);
  } finally {
    await file.close();
  }
}

async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await file.read(buffer, 0, length, position);
  return buffer.subarray(0, bytesRead);
}

/** A named section of a 64-bit little-endian ELF file (what CUDA libraries are on Linux). */
async function findSection(
  file: FileHandle,
  name: string,
): Promise<{ offset: number; size: number } | undefined> {
  const header = await readAt(file, 0, 64);
  const isElf64LittleEndian =
    header.length === 64 &&
    header.readUInt32BE(0) === 0x7f454c46 &&
    header[4] === 2 &&
    header[5] === 1;
  if (!isElf64LittleEndian) return undefined;
  const sectionTableOffset = Number(header.readBigUInt64LE(0x28));
  const sectionHeaderSize = header.readUInt16LE(0x3a);
  const sectionCount = header.readUInt16LE(0x3c);
  const namesIndex = header.readUInt16LE(0x3e);
  const table = await readAt(file, sectionTableOffset, sectionHeaderSize * sectionCount);
  const sectionAt = (index: number) => {
    const at = index * sectionHeaderSize;
    return {
      nameOffset: table.readUInt32LE(at),
      offset: Number(table.readBigUInt64LE(at + 0x18)),
      size: Number(table.readBigUInt64LE(at + 0x20)),
    };
  };
  if (namesIndex >= sectionCount) return undefined;
  const namesSection = sectionAt(namesIndex);
  const names = await readAt(file, namesSection.offset, namesSection.size);
  for (let index = 0; index < sectionCount; index += 1) {
    const section = sectionAt(index);
    const end = names.indexOf(0, section.nameOffset);
    if (names.toString("latin1", section.nameOffset, end) === name) return section;
  }
  return undefined;
}

/**
 * Walks the fat binaries packed in the section: each is a 16-byte header (magic, version,
 * header size, payload size) followed by entries, each a header (kind, header size, payload
 * size, …, sm number at byte 28) and its payload.
 */
async function readFatbinEntries(
  file: FileHandle,
  start: number,
  end: number,
): Promise<CudaArchitectures> {
  const sass = new Set<number>();
  const ptx = new Set<number>();
  let at = start;
  while (at + 16 <= end) {
    const header = await readAt(file, at, 16);
    if (header.length < 16) break;
    if (header.readUInt32LE(0) !== FATBIN_MAGIC) {
      // Fat binaries are 8-byte aligned; padding may sit between them.
      at += 8;
      continue;
    }
    const headerSize = header.readUInt16LE(6);
    const payloadEnd = at + headerSize + Number(header.readBigUInt64LE(8));
    let entryAt = at + headerSize;
    while (entryAt + 32 <= payloadEnd) {
      const entry = await readAt(file, entryAt, 32);
      if (entry.length < 32) break;
      const kind = entry.readUInt16LE(0);
      const entryHeaderSize = entry.readUInt32LE(4);
      const entrySize = Number(entry.readBigUInt64LE(8));
      const architecture = entry.readUInt32LE(28);
      if (kind === ENTRY_ELF) sass.add(architecture);
      else if (kind === ENTRY_PTX) ptx.add(architecture);
      if (entryHeaderSize === 0) break;
      entryAt += entryHeaderSize + entrySize;
    }
    at = Math.max(payloadEnd, at + 16);
  }
  const ascending = (values: Set<number>) => [...values].sort((left, right) => left - right);
  return { sass: ascending(sass), ptx: ascending(ptx) };
}
