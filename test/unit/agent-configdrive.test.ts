// The config drive as Ironic sends it to IPA, built with the real genisoimage (and xorriso):
// which files land on the config-2 ISO for which input, read back with isoinfo after base64 and
// gunzip, and by the fake agent's own ISO reader; YAML documents become JSON with sorted keys;
// the tools' argv and private build directory; failures (no tool, a failing tool, a hung tool)
// are transient ConfigDriveBuildFailed and leave no directory behind. Then the fake agent's
// refusals, which are IPA's: the JSON form, and anything that is not a gzipped config-2 ISO.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConfigDriveISO } from '../../drivers/agent/configdrive.js';
import type { AgentConfigDrive } from '../../drivers/agent/port.js';
import { readConfigDrive } from '../../emulators/agent/configdrive.js';

const run = promisify(execFile);
const FLAGS = ['-ldots', '-allow-lowercase', '-allow-multidot', '-l', '-publisher', 'ironic', '-quiet', '-J', '-r', '-V', 'config-2'];
const CANARY = 'user-data-canary-0c1d2e3f';
const LATEST = '/openstack/latest';

let work = '';
/** The parent of the builder's private directories: empty again after every build. */
let parent = '';

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'configdrive-test-'));
  parent = join(work, 'parent');
  mkdirSync(parent);
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

async function which(tool: string): Promise<string> {
  return (await run('sh', ['-c', `command -v ${tool}`])).stdout.trim();
}

type Tools = Record<string, { script: string } | { link: string }>;

/** A directory holding only the given executables (scripts or symlinks): a PATH for the builder. */
function toolDir(name: string, tools: Tools): string {
  const dir = join(work, name);
  mkdirSync(dir);
  for (const [file, tool] of Object.entries(tools)) {
    if ('link' in tool) symlinkSync(tool.link, join(dir, file));
    else writeFileSync(join(dir, file), `#!/bin/sh\n${tool.script}\n`, { mode: 0o755 });
  }
  return dir;
}

interface ISOContents {
  volumeId: string;
  publisher: string;
  files: Record<string, string>;
}

/** What isoinfo finds in the config drive after base64 and gunzip, as IPA and cloud-init see it. */
async function isoinfo(configdrive: string): Promise<ISOContents> {
  const path = join(work, `read-${String(Math.random()).slice(2)}.iso`);
  writeFileSync(path, gunzipSync(Buffer.from(configdrive, 'base64')));
  try {
    const descriptor = (await run('isoinfo', ['-d', '-i', path])).stdout;
    const listing = (await run('isoinfo', ['-i', path, '-R', '-f'])).stdout.split('\n').filter((line) => line.startsWith(`${LATEST}/`));
    const files: Record<string, string> = {};
    for (const file of listing.sort()) {
      files[file.slice(LATEST.length + 1)] = (await run('isoinfo', ['-i', path, '-R', '-x', file])).stdout;
    }
    return { volumeId: /^Volume id: (.*)$/m.exec(descriptor)?.[1] ?? '', publisher: /^Publisher id: (.*)$/m.exec(descriptor)?.[1] ?? '', files };
  } finally {
    rmSync(path);
  }
}

async function build(drive: AgentConfigDrive | undefined, options: { searchPath?: string; timeoutMs?: number } = {}): Promise<string | undefined> {
  try {
    return await buildConfigDriveISO(drive, { tmpDir: parent, ...options });
  } finally {
    expect(readdirSync(parent)).toEqual([]);
  }
}

interface FilesCase {
  name: string;
  drive: AgentConfigDrive;
  /** The files under openstack/latest and their exact contents. */
  files: Record<string, string>;
}

describe('config drive files', () => {
  it.each<FilesCase>([
    {
      name: 'user data only: meta_data.json is still there, as {}',
      drive: { userData: `#cloud-config\nruncmd: [echo ${CANARY}]\n` },
      files: { 'meta_data.json': '{}', user_data: `#cloud-config\nruncmd: [echo ${CANARY}]\n` },
    },
    {
      name: 'JSON meta data only, keys sorted at every level',
      drive: { metaData: '{"uuid": "u-1", "b": {"z": 1, "a": [3, {"y": true, "x": null}]}}' },
      files: { 'meta_data.json': '{"b":{"a":[3,{"x":null,"y":true}],"z":1},"uuid":"u-1"}' },
    },
    {
      name: 'YAML meta data becomes JSON',
      drive: { metaData: 'uuid: u-1\nmetal3-namespace: metal3\nlocal-hostname: host-0\n' },
      files: { 'meta_data.json': '{"local-hostname":"host-0","metal3-namespace":"metal3","uuid":"u-1"}' },
    },
    {
      name: 'YAML network data, empty user data left out',
      drive: { userData: '', networkData: 'links:\n- id: eth0\n  type: phy\n  ethernet_mac_address: 52:54:00:aa:00:01\n' },
      files: { 'meta_data.json': '{}', 'network_data.json': '{"links":[{"ethernet_mac_address":"52:54:00:aa:00:01","id":"eth0","type":"phy"}]}' },
    },
    {
      name: 'all three',
      drive: { userData: '#!/bin/sh\necho hi\n', networkData: '{"services": []}', metaData: 'name: host-0' },
      files: { 'meta_data.json': '{"name":"host-0"}', 'network_data.json': '{"services":[]}', user_data: '#!/bin/sh\necho hi\n' },
    },
  ])('$name', async ({ drive, files }) => {
    const configdrive = await build(drive);
    expect(configdrive).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    expect(await isoinfo(configdrive!)).toEqual({ volumeId: 'config-2', publisher: 'ironic', files });
    const { 'meta_data.json': metaData, 'network_data.json': networkData, user_data: userData } = files;
    expect(readConfigDrive(configdrive)).toEqual({
      volumeId: 'config-2',
      meta_data: JSON.parse(metaData!) as unknown,
      ...(networkData === undefined ? {} : { network_data: JSON.parse(networkData) as unknown }),
      ...(userData === undefined ? {} : { user_data: userData }),
    });
  });

  it.each([
    { name: 'no drive', drive: undefined },
    { name: 'an empty drive', drive: {} },
    { name: 'only empty or blank values', drive: { userData: '', metaData: '  ', networkData: '\n' } },
  ])('nothing to put on it ($name): no config drive', async ({ drive }) => {
    expect(await build(drive)).toBeUndefined();
  });

  it.each([
    { name: 'network data that is a list', drive: { networkData: '- a\n- b' }, message: /networkData must be a JSON or YAML object/ },
    { name: 'meta data that does not parse', drive: { metaData: '{ "a": ' }, message: /metaData is neither JSON nor YAML/ },
    { name: 'meta data that is a string', drive: { metaData: 'just text', userData: CANARY }, message: /metaData must be a JSON or YAML object/ },
  ])('$name: permanent ImageInvalid, before any file is written', async ({ drive, message }) => {
    await expect(build(drive)).rejects.toMatchObject({ reason: 'ImageInvalid', kind: 'Permanent', message: expect.stringMatching(message) as string });
  });

  it('the same input gives the same contents (genisoimage stamps the time, so bytes may differ)', async () => {
    const drive = { userData: '#cloud-config\n', networkData: 'b: 1\na: 2\n', metaData: '{"z": 1, "a": 2}' };
    const [first, second] = [await build(drive), await build(drive)];
    expect(await isoinfo(second!)).toEqual(await isoinfo(first!));
    expect(readConfigDrive(second)).toEqual(readConfigDrive(first));
  });

  it('is gzip at level 9', async () => {
    const compressed = Buffer.from((await build({ userData: 'x' }))!, 'base64');
    // gzip header: magic, deflate, then XFL 2 (maximum compression) at byte 8.
    expect([compressed[0], compressed[1], compressed[2], compressed[8]]).toEqual([0x1f, 0x8b, 8, 2]);
  });
});

describe('the ISO tools', () => {
  it('genisoimage gets Ironic flags, the output and the directory in a private 0700 directory, no user data', async () => {
    const genisoimage = await which('genisoimage');
    const record = join(work, 'argv.txt');
    const script = [
      `printf '%s\\n' "$@" > ${record}`,
      `/usr/bin/stat -c '%a' "$(/usr/bin/dirname "$2")" "$(/usr/bin/dirname "$2")/drive/openstack/latest/user_data" >> ${record}`,
      `exec ${genisoimage} "$@"`,
    ].join('\n');
    const searchPath = toolDir('recording', { genisoimage: { script } });
    const configdrive = await build({ userData: CANARY }, { searchPath });
    const lines = readFileSync(record, 'utf8').trimEnd().split('\n');
    const output = lines[1]!;
    const dir = output.slice(0, output.lastIndexOf('/'));
    expect(dir.startsWith(join(parent, 'ironhook-configdrive-'))).toBe(true);
    expect(lines).toEqual(['-o', `${dir}/config-drive.iso`, ...FLAGS, `${dir}/drive`, '700', '600']);
    expect(lines.join('\n')).not.toContain(CANARY);
    expect((await isoinfo(configdrive!)).files).toEqual({ 'meta_data.json': '{}', user_data: CANARY });
  });

  it('xorriso as genisoimage when genisoimage is not installed', async () => {
    const searchPath = toolDir('xorriso-only', { xorriso: { link: await which('xorriso') } });
    const configdrive = await build({ userData: CANARY, metaData: 'uuid: u-1' }, { searchPath });
    const contents = await isoinfo(configdrive!);
    expect(contents).toMatchObject({ volumeId: 'config-2', files: { 'meta_data.json': '{"uuid":"u-1"}', user_data: CANARY } });
    expect(readConfigDrive(configdrive)).toEqual({ volumeId: 'config-2', meta_data: { uuid: 'u-1' }, user_data: CANARY });
  });

  it.each<{ name: string; tools: Tools; message: RegExp }>([
    { name: 'neither tool installed', tools: {}, message: /neither genisoimage nor xorriso is installed/ },
    {
      name: 'genisoimage fails (xorriso is not tried)',
      tools: { genisoimage: { script: 'echo "genisoimage: Permission denied. Unable to open disc image file" >&2\nexit 3' }, xorriso: { script: 'exit 0' } },
      message: /^genisoimage exited 3 building the config drive ISO: genisoimage: Permission denied/,
    },
    { name: 'xorriso fails', tools: { xorriso: { script: 'exit 5' } }, message: /^xorriso exited 5 building the config drive ISO$/ },
    { name: 'genisoimage hangs', tools: { genisoimage: { script: 'exec /bin/sleep 30' } }, message: /^genisoimage was killed after 100 ms/ },
  ])('$name: transient ConfigDriveBuildFailed, no user data in the message, nothing left behind', async ({ name, tools, message }) => {
    const searchPath = toolDir(name.replace(/\W+/g, '-'), tools);
    const failure = build({ userData: CANARY }, { searchPath, timeoutMs: 100 });
    await expect(failure).rejects.toMatchObject({ name: 'AgentError', reason: 'ConfigDriveBuildFailed', kind: 'Transient' });
    const err = (await failure.catch((error: unknown) => error)) as Error;
    expect(err.message).toMatch(message);
    expect(err.message).not.toContain(CANARY);
  });

  it('a build directory parent that does not exist: transient ConfigDriveBuildFailed', async () => {
    const attempt = buildConfigDriveISO({ userData: CANARY }, { tmpDir: join(work, 'missing') });
    await expect(attempt).rejects.toMatchObject({
      reason: 'ConfigDriveBuildFailed',
      kind: 'Transient',
      message: 'the config drive files could not be written or read (ENOENT)',
    });
  });
});

describe('the fake agent reads the config drive like IPA', () => {
  async function iso(volumeId: string, files: Record<string, string>): Promise<Buffer> {
    const root = mkdtempSync(join(work, 'tree-'));
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), content);
    }
    const output = `${root}.iso`;
    await run('genisoimage', ['-o', output, '-quiet', '-J', '-r', '-V', volumeId, root]);
    return readFileSync(output);
  }

  const encoded = (data: Buffer): string => gzipSync(data).toString('base64');

  it.each([
    {
      name: 'the JSON form (Ironic API input, not what IPA takes)',
      drive: () => ({ user_data: '#cloud-config\n' }),
      message: /must be a base64 string.*not object/,
    },
    { name: 'a list', drive: () => ['a'], message: /not an array/ },
    { name: 'a URL', drive: () => 'http://127.0.0.1/configdrive.gz', message: /does not download config drives/ },
    { name: 'not base64', drive: () => 'not base64!', message: /not base64 encoded or the content is malformed/ },
    { name: 'base64 but not gzip', drive: () => Buffer.from('hello').toString('base64'), message: /not gzip-compressed/ },
    { name: 'gzip but not an ISO', drive: () => encoded(Buffer.alloc(40_000)), message: /not an ISO 9660 image/ },
    {
      name: 'a truncated ISO',
      drive: async () => encoded((await iso('config-2', { 'openstack/latest/meta_data.json': '{}' })).subarray(0, 34_000)),
      message: /not an ISO 9660 image/,
    },
    {
      name: 'another volume id',
      drive: async () => encoded(await iso('cidata', { 'openstack/latest/meta_data.json': '{}' })),
      message: /volume id is "cidata", not config-2/,
    },
    {
      name: 'no meta_data.json',
      drive: async () => encoded(await iso('config-2', { 'openstack/latest/user_data': 'x' })),
      message: /no \/openstack\/latest\/meta_data.json/,
    },
    {
      name: 'meta_data.json not JSON',
      drive: async () => encoded(await iso('config-2', { 'openstack/latest/meta_data.json': 'a: 1' })),
      message: /meta_data.json is not JSON/,
    },
    { name: 'bigger than 64 MiB unpacked', drive: () => encoded(Buffer.alloc(64 * 1024 * 1024 + 1)), message: /exceeds maximum limit of 64MiB/ },
  ])('refuses $name with InstanceDeployFailure', async ({ drive, message }) => {
    const value: unknown = await drive();
    expect(() => readConfigDrive(value)).toThrow(
      expect.objectContaining({ type: 'InstanceDeployFailure', message: expect.stringMatching(message) as string }) as Error,
    );
  });

  it('reads names from the Joliet tree (the primary tree has 8.3 names without -l)', async () => {
    const image = await iso('config-2', { 'openstack/latest/meta_data.json': '{"a":1}', 'openstack/latest/network_data.json': '{"links":[]}' });
    expect(readConfigDrive(encoded(image))).toEqual({ volumeId: 'config-2', meta_data: { a: 1 }, network_data: { links: [] } });
  });

  it('reads names from the primary tree when the ISO has no Joliet tree', async () => {
    const root = mkdtempSync(join(work, 'plain-'));
    mkdirSync(join(root, 'openstack', 'latest'), { recursive: true });
    writeFileSync(join(root, 'openstack', 'latest', 'meta_data.json'), '{"a":1}');
    writeFileSync(join(root, 'openstack', 'latest', 'user_data'), CANARY);
    await run('genisoimage', ['-o', `${root}.iso`, '-quiet', '-l', '-allow-lowercase', '-allow-multidot', '-V', 'config-2', root]);
    expect(readConfigDrive(encoded(readFileSync(`${root}.iso`)))).toEqual({ volumeId: 'config-2', meta_data: { a: 1 }, user_data: CANARY });
  });
});
