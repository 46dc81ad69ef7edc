// Decodes the 8-bit RGB/RGBA PNGs chromium writes, enough to tell whether a
// screenshot is blank: the share of pixels that differ from the most common
// colour, and how many distinct colours a sample holds.
'use strict';
const zlib = require('zlib');

function decode(buffer) {
  let offset = 8;
  let width = 0, height = 0, colorType = 0, bitDepth = 0;
  const data = [];
  while (offset < buffer.length) {
    const length = buffer.readUInt32BE(offset);
    const type = buffer.toString('ascii', offset + 4, offset + 8);
    const body = buffer.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      bitDepth = body[8];
      colorType = body[9];
    } else if (type === 'IDAT') {
      data.push(body);
    }
    offset += 12 + length;
  }
  if (bitDepth !== 8 || (colorType !== 2 && colorType !== 6)) {
    throw new Error(`unsupported PNG: bit depth ${bitDepth}, colour type ${colorType}`);
  }
  const bpp = colorType === 6 ? 4 : 3;
  const raw = zlib.inflateSync(Buffer.concat(data));
  const stride = width * bpp;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? pixels[y * stride + x - bpp] : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + x] : 0;
      const c = x >= bpp && y > 0 ? pixels[(y - 1) * stride + x - bpp] : 0;
      let v = line[x];
      if (filter === 1) v += a;
      else if (filter === 2) v += b;
      else if (filter === 3) v += (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      pixels[y * stride + x] = v & 0xff;
    }
  }
  return { width, height, bpp, pixels };
}

// { width, height, colours, inked }: inked is the share of pixels not of the
// most common colour (the background).
function inspect(buffer) {
  const { width, height, bpp, pixels } = decode(buffer);
  const counts = new Map();
  for (let i = 0; i < width * height; i++) {
    const o = i * bpp;
    const key = (pixels[o] << 16) | (pixels[o + 1] << 8) | pixels[o + 2];
    counts.set(key, (counts.get(key) || 0) + 1);
  }
  let top = 0;
  for (const n of counts.values()) top = Math.max(top, n);
  return { width, height, colours: counts.size, inked: 1 - top / (width * height) };
}

module.exports = { inspect };
