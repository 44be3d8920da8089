// standby.prepare_image's image_info from a host's spec.image, the way Ironic builds it for an
// http(s) image (the config drive: configdrive.ts).
import { AgentError } from './errors.js';
import { ironicRootDevice, type IronicRootDevice } from './root-device.js';
import type { AgentImage } from './port.js';

export interface ImageInfo {
  id: string;
  urls: string[];
  disk_format?: string;
  container_format: 'bare';
  stream_raw_images: boolean;
  image_type: 'whole-disk';
  node_uuid: string;
  checksum?: string;
  os_hash_algo?: string;
  os_hash_value?: string;
  root_device?: IronicRootDevice;
}

const HASH_ALGORITHMS: Record<string, string> = { sha256: 'sha256', sha512: 'sha512' };

function isURL(text: string): boolean {
  return /^https?:\/\//i.test(text);
}

/** Ironic names an http(s) image after the last path segment of its URL. */
export function imageID(url: string): string {
  const path = URL.canParse(url) ? new URL(url).pathname : url;
  const last = path
    .split('/')
    .filter((part) => part !== '')
    .at(-1);
  return last ?? 'image';
}

function checksumFields(image: AgentImage): Pick<ImageInfo, 'checksum' | 'os_hash_algo' | 'os_hash_value'> {
  const checksum = image.checksum?.trim() ?? '';
  const type = (image.checksumType ?? '').toLowerCase();
  if (checksum === '') {
    throw new AgentError('ImageInvalid', 'the image has no checksum; the agent refuses to write an unverified image');
  }
  if (type === 'md5') {
    throw new AgentError('ImageInvalid', 'md5 image checksums are disabled (as in Ironic); use sha256 or sha512');
  }
  const algorithm = HASH_ALGORITHMS[type];
  if (algorithm === undefined || isURL(checksum)) {
    // "auto" or a checksum file URL: the agent detects the algorithm from the value's length.
    return { checksum };
  }
  return { os_hash_algo: algorithm, os_hash_value: checksum.toLowerCase() };
}

/** The image_info block; rejects with ImageInvalid when the image cannot be verified. */
export function buildImageInfo(image: AgentImage, nodeUUID: string): ImageInfo {
  const info: ImageInfo = {
    id: imageID(image.url),
    urls: [image.url],
    container_format: 'bare',
    stream_raw_images: true,
    image_type: 'whole-disk',
    node_uuid: nodeUUID,
    ...checksumFields(image),
  };
  if (image.format !== undefined && image.format !== '') info.disk_format = image.format;
  const rootDevice = ironicRootDevice(image.rootDeviceHints);
  if (rootDevice !== undefined) info.root_device = rootDevice;
  return info;
}
