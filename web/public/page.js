// The page: the explorer filling the window, or with #embed one view for an iframe. The address bar
// holds the state (#v=masks&m.c=0), so a link reproduces what the reader sees.
import { mount, parseHash } from './mount.js';

const kHashDelayMs = 250;  // replaceState at most this often while a slider moves

async function main() {
  const link = parseHash(location.hash);
  document.documentElement.classList.toggle('attnlab-embed-page', link.embed);
  // "open in attnlab" leads to this page without #embed (and without the theme the host chose).
  const fullPage = new URL(location.href);
  fullPage.hash = '';
  const handle = await mount(document.getElementById('app'), {
    state: link.state, theme: link.theme || 'auto', embed: link.embed, fullPage: !link.embed, openUrl: fullPage.href,
    workers: link.workers,
  });
  if (!handle) return;  // mount said why on the page
  window.attnlab = handle.attnlab;  // for the console and the browser tests
  window.attnlabHandle = handle;

  // The state into the address bar, debounced, without a history entry per slider step. The page's
  // own options (embed, theme) stay in front.
  const own = [link.embed ? 'embed' : null, link.theme ? `theme=${link.theme}` : null, link.workers ? null : 'workers=off'].filter(Boolean);
  let timer = 0;
  let written = location.hash.replace(/^#/, '');
  handle.onStateChange((state) => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const hash = [...own, state].filter(Boolean).join('&');
      if (hash === written) return;
      written = hash;
      history.replaceState(history.state, '', hash ? `#${hash}` : location.pathname + location.search);
    }, kHashDelayMs);
  });
  // A hash the reader typed or a link inside the page followed: applied live, from the defaults.
  addEventListener('hashchange', () => {
    // A write of the previous state still pending would overwrite what the reader just typed.
    clearTimeout(timer);
    const next = parseHash(location.hash);
    written = location.hash.replace(/^#/, '');
    if (next.state !== handle.state()) handle.setState(next.state);
    if (next.theme) handle.setTheme(next.theme);
  });

  // In an iframe: tell the host how tall the view is, so it can size the frame (README, "Embed it").
  if (link.embed && window.parent !== window) {
    let height = 0;
    const post = () => window.parent.postMessage({ type: 'attnlab:resize', height }, '*');
    handle.onResize((h) => {
      height = Math.ceil(h);
      post();
    });
    // The host's attnlab-embed.js, loaded after this frame last reported, asks again.
    addEventListener('message', (e) => {
      if (e.source === window.parent && e.data?.type === 'attnlab:measure' && height > 0) post();
    });
  }
  document.documentElement.dataset.ready = 'true';
}

main().catch((e) => {
  const status = document.createElement('div');
  status.className = 'attnlab-status attnlab-error';
  status.textContent = `attnlab could not start: ${e && e.message ? e.message : e}`;
  document.body.append(status);
});
