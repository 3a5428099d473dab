// The Share button of every attnlab (full page and embeds): copy a link, an iframe, or an <attn-lab>
// element that reproduces what the reader sees.
const here = (name) => new URL(name, import.meta.url).href;

// The embed script a pasted snippet loads: in `npm run build`'s dist/, the pinned
// attnlab-embed.<hash>.js named by manifest.json (it and everything it loads never change, so a post
// keeps working when the site is updated); elsewhere (npm start) the script itself.
let pinnedEmbedScript = null;
export function embedScriptUrl() {
  pinnedEmbedScript ??= fetch(here('manifest.json'))
    .then((r) => (r.ok ? r.json() : {}))
    .then((m) => here(typeof m['attnlab-embed.js'] === 'string' ? m['attnlab-embed.js'] : 'attnlab-embed.js'))
    .catch(() => here('attnlab-embed.js'));
  return pinnedEmbedScript;
}

// The three snippets for a state string ('v=heads&h.n=8'), the theme ('auto', 'light', 'dark') and
// the embed script's URL. Each works pasted alone into a post served with README's CSP: the iframe
// and the element bring the script that sizes and runs them, and nothing is inline.
export function shareCodes(state, { theme = 'auto', embedScript = here('attnlab-embed.js') } = {}) {
  const page = here('index.html');
  const parts = state.split('&').filter(Boolean);
  const view = (parts.find((p) => p.startsWith('v=')) || 'v=words').slice(2);
  const rest = parts.filter((p) => !p.startsWith('v=')).join('&');
  const fixedTheme = theme === 'light' || theme === 'dark' ? theme : null;
  const hash = [fixedTheme ? `theme=${fixedTheme}` : null, state || null].filter(Boolean).join('&');
  const attr = (s) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  const script = `<script type="module" src="${attr(embedScript)}"></script>`;
  return {
    link: hash ? `${page}#${hash}` : page,
    iframe: `${script}\n<iframe class="attnlab" src="${attr(`${page}#embed&${[fixedTheme ? `theme=${fixedTheme}` : null, state || 'v=words'].filter(Boolean).join('&')}`)}" ` +
            `title="attnlab: ${attr(view)}" loading="lazy"></iframe>`,
    element: `${script}\n<attn-lab view="${attr(view)}"${rest ? ` state="${attr(rest)}"` : ''}${fixedTheme ? ` theme="${fixedTheme}"` : ''}></attn-lab>`,
  };
}

async function copy(text, field) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    field.select();  // no clipboard permission (an iframe without it): select it for Ctrl+C
    return document.execCommand && document.execCommand('copy');
  }
}

// A "Share" button in `parent` and the panel it opens inside `root`. state() and theme() give what
// the snippets reproduce at the moment of the click.
export function attachShare(root, parent, { state, theme, savePng }) {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'attnlab-share-button';
  button.textContent = 'Share';
  button.setAttribute('aria-expanded', 'false');
  const panel = document.createElement('div');
  panel.className = 'attnlab-share';
  panel.hidden = true;
  panel.setAttribute('role', 'dialog');
  panel.setAttribute('aria-label', 'Share this view');
  const rows = {};
  for (const [key, label] of [['link', 'Copy link'], ['iframe', 'Copy iframe code'], ['element', 'Copy <attn-lab> code']]) {
    const row = document.createElement('div');
    row.className = 'attnlab-share-row';
    const field = document.createElement(key === 'link' ? 'input' : 'textarea');
    field.readOnly = true;
    field.className = `attnlab-share-${key}`;
    field.setAttribute('aria-label', label);
    const copyButton = document.createElement('button');
    copyButton.type = 'button';
    copyButton.textContent = label;
    copyButton.addEventListener('click', async () => {
      const ok = await copy(field.value, field);
      copyButton.textContent = ok ? 'Copied' : 'Press Ctrl+C';
      setTimeout(() => { copyButton.textContent = label; }, 1500);
    });
    row.append(field, copyButton);
    panel.append(row);
    rows[key] = field;
  }
  const png = document.createElement('button');
  png.type = 'button';
  png.className = 'attnlab-share-png';
  png.textContent = 'Save view as PNG';
  png.addEventListener('click', () => savePng());
  panel.append(png);
  const close = () => {
    panel.hidden = true;
    button.setAttribute('aria-expanded', 'false');
  };
  button.addEventListener('click', async () => {
    if (!panel.hidden) return close();
    const codes = shareCodes(state(), { theme: theme(), embedScript: await embedScriptUrl() });
    for (const key of Object.keys(rows)) rows[key].value = codes[key];
    panel.hidden = false;
    button.setAttribute('aria-expanded', 'true');
  });
  panel.addEventListener('keydown', (e) => { if (e.key === 'Escape') { close(); button.focus(); } });
  root.addEventListener('pointerdown', (e) => { if (!panel.contains(e.target) && e.target !== button) close(); });
  parent.append(button);
  root.append(panel);
  return { button, panel, close };
}
