// The container images `npm run image` builds (scripts/image.sh, docs/images.md), as its
// manifest images.json in the images cache lists them: references, digests and the archives a
// node imports (docker-archive) or a registry receives (OCI archive).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CACHE_DIR } from './processes.js';

const IMAGES_MANIFEST = join(CACHE_DIR, 'images', 'images.json');

export interface BuiltImage {
  name: string;
  reference: string;
  digest: string;
  imageId: string;
  sizeBytes: number;
  created: string;
  archives: { oci: { path: string; bytes: number }; docker: { path: string; bytes: number } };
  buildSeconds: number;
  exportSeconds: number;
}

/** The images of the last `npm run image`, by name. Throws (so a test fails, never skips) when there are none. */
export function builtImages(): Map<string, BuiltImage> {
  if (!existsSync(IMAGES_MANIFEST)) {
    throw new Error(`${IMAGES_MANIFEST} is missing: run \`npm run image\` first (scripts/test.sh does for the integration and e2e tiers)`);
  }
  const { images } = JSON.parse(readFileSync(IMAGES_MANIFEST, 'utf8')) as { images: BuiltImage[] };
  for (const image of images) {
    if (!existsSync(image.archives.docker.path))
      throw new Error(`${image.reference}: ${image.archives.docker.path} is missing: rebuild with \`npm run image\``);
  }
  return new Map(images.map((image) => [image.name, image]));
}

/** The docker-archives of the built images, for a node to import; throws when they are not built. */
export function localImageArchives(): string[] {
  return [...builtImages().values()].map((image) => image.archives.docker.path);
}
