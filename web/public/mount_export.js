// What leaves the page from a view's ⋯ menu: a CSV to the clipboard (a download where the clipboard
// refuses), a PNG of the whole view, a file (a model's weights). Returns the list of exports, newest
// last, which mount()'s handle shows the browser tests.
export function attachExports(attnlab) {
  const exports = [];
  attnlab.onExport(
    (name, text) => {
      exports.push({ name, kind: 'csv', text });
      navigator.clipboard?.writeText(text).catch(() => download(name, new Blob([text], { type: 'text/csv' })));
    },
    (name, width, height, rgba) => {
      const picture = document.createElement('canvas');
      picture.width = width;
      picture.height = height;
      picture.getContext('2d').putImageData(new ImageData(new Uint8ClampedArray(rgba.buffer), width, height), 0, 0);
      picture.toBlob((blob) => {
        exports.push({ name, kind: 'png', width, height, bytes: blob ? blob.size : 0, picture });
        if (blob) download(name, blob);
      }, 'image/png');
    },
    (name, blob) => {
      exports.push({ name, kind: 'file', bytes: blob.size, blob });
      download(name, blob);
    });
  return exports;
}

// Saves `blob` as a file called `name` (a click on a temporary link: no popup, no new tab).
function download(name, blob) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
