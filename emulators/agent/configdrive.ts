// prepare_image's configdrive as IPA reads it (ironic_python_agent's get_configdrive): a base64
// string of a gzipped image, here an ISO 9660 image whose files the fake agent reads back, as the
// installed OS's cloud-init would. IPA refuses anything else (Ironic's JSON form included) with
// InstanceDeployFailure, and so does the fake agent.
import { gunzipSync } from 'node:zlib';
import { CommandFailure } from './download.js';
import { ISO9660Error, ISO9660Image } from './iso9660.js';

/** What the fake agent found on the config drive it was given. */
export interface FakeConfigDrive {
  /** The ISO's volume id: cloud-init looks for config-2. */
  volumeId: string;
  meta_data: Record<string, unknown>;
  network_data?: unknown;
  user_data?: string;
}

/** IPA's limit (MAX_CONFIG_DRIVE_SIZE_MB). */
const MAX_CONFIG_DRIVE_BYTES = 64 * 1024 * 1024;
const LATEST = '/openstack/latest';
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function refused(message: string): CommandFailure {
  return new CommandFailure('InstanceDeployFailure', message);
}

function gunzip(compressed: Buffer): Buffer {
  try {
    return gunzipSync(compressed, { maxOutputLength: MAX_CONFIG_DRIVE_BYTES });
  } catch (err) {
    const tooBig = err instanceof RangeError || (err instanceof Error && 'code' in err && err.code === 'ERR_BUFFER_TOO_LARGE');
    throw refused(tooBig ? 'config drive size exceeds maximum limit of 64MiB' : 'config drive is not gzip-compressed');
  }
}

function decode(configdrive: unknown): Buffer {
  if (typeof configdrive !== 'string') {
    throw refused(`config drive must be a base64 string of a gzipped ISO 9660 image, not ${Array.isArray(configdrive) ? 'an array' : typeof configdrive}`);
  }
  if (/^https?:\/\//i.test(configdrive)) throw refused('the fake agent does not download config drives');
  const text = configdrive.replace(/\s+/g, '');
  if (text.length % 4 !== 0 || !BASE64.test(text)) throw refused('config drive is not base64 encoded or the content is malformed');
  return gunzip(Buffer.from(text, 'base64'));
}

function json(iso: ISO9660Image, name: string): unknown {
  const content = iso.readFile(`${LATEST}/${name}`);
  if (content === undefined) return undefined;
  try {
    return JSON.parse(content.toString('utf8')) as unknown;
  } catch {
    throw refused(`config drive file ${LATEST}/${name} is not JSON`);
  }
}

function contents(iso: ISO9660Image): FakeConfigDrive {
  if (iso.volumeId !== 'config-2') throw refused(`config drive volume id is "${iso.volumeId}", not config-2: cloud-init would not find it`);
  const metaData = json(iso, 'meta_data.json');
  if (typeof metaData !== 'object' || metaData === null || Array.isArray(metaData)) {
    throw refused(`config drive has no ${LATEST}/meta_data.json object (cloud-init requires it)`);
  }
  const networkData = json(iso, 'network_data.json');
  const userData = iso.readFile(`${LATEST}/user_data`);
  return {
    volumeId: iso.volumeId,
    meta_data: metaData as Record<string, unknown>,
    ...(networkData === undefined ? {} : { network_data: networkData }),
    ...(userData === undefined ? {} : { user_data: userData.toString('utf8') }),
  };
}

/** The config drive's contents; rejects with an InstanceDeployFailure CommandFailure. */
export function readConfigDrive(configdrive: unknown): FakeConfigDrive {
  const image = decode(configdrive);
  try {
    return contents(new ISO9660Image(image));
  } catch (err) {
    throw err instanceof ISO9660Error ? refused(`config drive: ${err.message}`) : err;
  }
}
