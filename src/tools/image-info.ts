import path from 'node:path';

const imageTypes: Record<string, string> = {
  '.png': 'PNG',
  '.jpg': 'JPEG',
  '.jpeg': 'JPEG',
  '.gif': 'GIF',
  '.webp': 'WebP',
  '.bmp': 'BMP',
  '.ico': 'ICO',
  '.tif': 'TIFF',
  '.tiff': 'TIFF',
  '.avif': 'AVIF',
};

const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * A one-line description of an image file (type, pixel size when the header tells it cheaply, bytes),
 * or undefined when the file is not an image by its extension or signature.
 */
export function describeImage(shown: string, sample: Buffer, size: number): string | undefined {
  const type = imageType(shown, sample);
  if (type === undefined) return undefined;
  const pixels = dimensions(type, sample);
  const dims = pixels === undefined ? '' : `, ${pixels.width}x${pixels.height} pixels`;
  return `${shown} is a ${type} image${dims}, ${size} bytes. Its contents are not shown as text.`;
}

function imageType(shown: string, sample: Buffer): string | undefined {
  if (sample.subarray(0, 8).equals(pngSignature)) return 'PNG';
  const ascii = sample.subarray(0, 6).toString('latin1');
  if (ascii === 'GIF87a' || ascii === 'GIF89a') return 'GIF';
  if (sample[0] === 0xff && sample[1] === 0xd8 && sample[2] === 0xff) return 'JPEG';
  return imageTypes[path.extname(shown).toLowerCase()];
}

function dimensions(type: string, sample: Buffer): { width: number; height: number } | undefined {
  if (type === 'PNG' && sample.length >= 24 && sample.subarray(0, 8).equals(pngSignature)) {
    return { width: sample.readUInt32BE(16), height: sample.readUInt32BE(20) };
  }
  if (type === 'GIF' && sample.length >= 10) {
    return { width: sample.readUInt16LE(6), height: sample.readUInt16LE(8) };
  }
  return undefined;
}
