// A small read-only ISO 9660 reader, enough for a config drive: the volume id and the contents of
// a file by path. Names come from the Joliet tree when there is one (what genisoimage -J and
// xorriso write), else from the primary tree without the ";1" version and a trailing dot.
// Paths are walked one directory at a time, so a malformed image cannot make it loop; every
// offset is checked against the image's size.

const SECTOR = 2048;
const FIRST_DESCRIPTOR = 16;
const MAX_DESCRIPTORS = 64;
const PRIMARY = 1;
const SUPPLEMENTARY = 2;
const TERMINATOR = 255;
const JOLIET_ESCAPES = ['%/@', '%/C', '%/E'];
const DIRECTORY_FLAG = 0x02;

interface Extent {
  sector: number;
  length: number;
  directory: boolean;
}

interface Tree {
  root: Extent;
  joliet: boolean;
}

export class ISO9660Error extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ISO9660Error';
  }
}

function decodeUCS2(bytes: Buffer): string {
  const swapped = Buffer.from(bytes);
  swapped.swap16();
  return swapped.toString('utf16le');
}

/** The directory record at `offset` in `data` (a descriptor or a directory's extent). */
function extentOf(data: Buffer, offset: number): Extent {
  return { sector: data.readUInt32LE(offset + 2), length: data.readUInt32LE(offset + 10), directory: (data.readUInt8(offset + 25) & DIRECTORY_FLAG) !== 0 };
}

function isJoliet(descriptor: Buffer): boolean {
  const escapes = descriptor.toString('latin1', 88, 91);
  return JOLIET_ESCAPES.includes(escapes);
}

export class ISO9660Image {
  readonly volumeId: string;
  private readonly tree: Tree;

  constructor(private readonly image: Buffer) {
    const descriptors = this.descriptors();
    const primary = descriptors.find((descriptor) => descriptor.readUInt8(0) === PRIMARY);
    if (primary === undefined) throw new ISO9660Error('not an ISO 9660 image (no primary volume descriptor)');
    const joliet = descriptors.find((descriptor) => descriptor.readUInt8(0) === SUPPLEMENTARY && isJoliet(descriptor));
    this.volumeId = primary.toString('latin1', 40, 72).trimEnd();
    this.tree = { root: extentOf(joliet ?? primary, 156), joliet: joliet !== undefined };
  }

  /** The file at `path` ("/openstack/latest/meta_data.json"), or undefined when there is none. */
  readFile(path: string): Buffer | undefined {
    let current = this.tree.root;
    for (const name of path.split('/').filter((part) => part !== '')) {
      if (!current.directory) return undefined;
      const next = this.entries(current).get(name);
      if (next === undefined) return undefined;
      current = next;
    }
    return current.directory ? undefined : this.sectors(current.sector, current.length);
  }

  /** The volume descriptors before the terminator. */
  private descriptors(): Buffer[] {
    const found: Buffer[] = [];
    for (let index = FIRST_DESCRIPTOR; index < FIRST_DESCRIPTOR + MAX_DESCRIPTORS; index += 1) {
      const descriptor = this.sectors(index, SECTOR);
      if (descriptor.toString('latin1', 1, 6) !== 'CD001') throw new ISO9660Error('not an ISO 9660 image (no CD001 volume descriptor)');
      if (descriptor.readUInt8(0) === TERMINATOR) break;
      found.push(descriptor);
    }
    return found;
  }

  private sectors(sector: number, length: number): Buffer {
    const start = sector * SECTOR;
    if (start + length > this.image.length) throw new ISO9660Error(`not an ISO 9660 image (sector ${sector} is past its end)`);
    return this.image.subarray(start, start + length);
  }

  private name(record: Buffer, offset: number): string {
    const raw = record.subarray(offset + 33, offset + 33 + record.readUInt8(offset + 32));
    const name = this.tree.joliet ? decodeUCS2(raw) : raw.toString('latin1');
    return name.replace(/;\d+$/, '').replace(/\.$/, '');
  }

  /** A directory's entries by name, without "." and "..". */
  private entries(directory: Extent): Map<string, Extent> {
    const data = this.sectors(directory.sector, directory.length);
    const entries = new Map<string, Extent>();
    let offset = 0;
    while (offset < data.length) {
      const length = data.readUInt8(offset);
      if (length === 0) {
        // Records never cross a sector boundary: the rest of this sector is padding.
        offset = (Math.floor(offset / SECTOR) + 1) * SECTOR;
        continue;
      }
      if (length < 34 || offset + length > data.length) throw new ISO9660Error('not an ISO 9660 image (malformed directory record)');
      const nameLength = data.readUInt8(offset + 32);
      if (33 + nameLength > length) throw new ISO9660Error('not an ISO 9660 image (malformed directory record)');
      const id = data.readUInt8(offset + 33);
      // "." and ".." are one byte, 0 and 1.
      if (nameLength !== 1 || (id !== 0 && id !== 1)) entries.set(this.name(data, offset), extentOf(data, offset));
      offset += length;
    }
    return entries;
  }
}
