// The embed script: <attn-lab> elements and <iframe class="attnlab"> frames in a blog post or any page.
//
//   <script type="module" src="https://…/attnlab-embed.js"></script>
//   <attn-lab view="heads" state="h.n=8" theme="auto"></attn-lab>
//   <iframe class="attnlab" src="https://…/index.html#embed&v=masks" title="attnlab: masks" loading="lazy"></iframe>
//
// Each element is its own instance (memory, ImGui context, canvas); the wasm is fetched and compiled
// once per page. An element starts when it is first scrolled near the viewport and draws nothing
// while it is out of view or the tab is hidden. element.state() / element.setState('…') read and
// set its state string; mount(element, options) does the same from code (see mount.js).
// An iframe of class "attnlab" is sized here to the height its page posts ('attnlab:resize'): the
// host needs no script or style of its own, so a strict Content-Security-Policy (script-src 'self',
// style-src 'self': no inline <script>, no style= attribute) is no obstacle.

// The app (mount.js and the wasm glue it imports) loads with the first <attn-lab> that starts: a
// page with iframes only fetches this file and attnlab.css.
export async function mount(host, options) {
  return (await import('./mount.js')).mount(host, options);
}

// The embeds' styles (attnlab.css: the element's parts and iframe.attnlab), once per document, from
// beside this script: a <link>, which style-src 'self' allows where an inline style is refused.
function addStyles() {
  const href = new URL('attnlab.css', import.meta.url).href;
  if ([...document.querySelectorAll('link[rel=stylesheet]')].some((l) => l.href === href)) return;
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = href;
  document.head.append(link);
}

// Sizes each iframe.attnlab to the height its page reports. Setting a property of element.style
// from a script is allowed by style-src 'self' (only style attributes in the markup are refused).
function sizeFrames() {
  if (window.attnlabFramesSized) return;  // the pinned and the latest script on one page: one listener
  window.attnlabFramesSized = true;
  addEventListener('message', (e) => {
    const height = e.data && e.data.type === 'attnlab:resize' ? Number(e.data.height) : NaN;
    if (!(height > 0 && height < 1e6)) return;
    for (const frame of document.querySelectorAll('iframe.attnlab'))
      if (frame.contentWindow === e.source) frame.style.height = `${Math.ceil(height)}px`;
  });
  // Frames that started before this script ran have reported already: ask them again.
  for (const frame of document.querySelectorAll('iframe.attnlab')) frame.contentWindow?.postMessage({ type: 'attnlab:measure' }, '*');
}

class AttnLabElement extends HTMLElement {
  connectedCallback() {
    addStyles();
    if (!this.hasAttribute('role')) this.setAttribute('role', 'figure');
    if (!this.hasAttribute('aria-label'))
      this.setAttribute('aria-label', `attnlab, the ${this.getAttribute('view') || 'words'} view of self-attention, interactive`);
    this.style.display = 'block';
    this.visible = false;
    this.observer = new IntersectionObserver((entries) => {
      this.visible = entries.some((e) => e.isIntersecting);
      if (this.visible && !this.mounting) this.start();
      this.updateRunning();
    }, { rootMargin: '200px 0px' });
    this.observer.observe(this);
    this.onVisibility = () => this.updateRunning();
    document.addEventListener('visibilitychange', this.onVisibility);
  }

  disconnectedCallback() {
    this.observer?.disconnect();
    document.removeEventListener('visibilitychange', this.onVisibility);
    this.mounting?.then((handle) => handle?.destroy());
    this.mounting = null;
    this.handle = null;
  }

  start() {
    this.mounting = mount(this, {
      view: this.getAttribute('view'),
      state: this.getAttribute('state') || '',
      theme: this.getAttribute('theme') || 'auto',
      embed: true,
      workers: this.getAttribute('workers') !== 'off',  // off: long work on the host page's thread
    });
    this.mounting.then((handle) => {
      this.handle = handle;
      this.updateRunning();
      this.dispatchEvent(new CustomEvent('attnlab-ready', { bubbles: true }));
    });
  }

  updateRunning() { this.handle?.setRunning(this.visible && !document.hidden); }

  // The element's state string ('v=heads&h.n=8'), and a new one from the defaults ('' or what was ignored).
  state() { return this.handle ? this.handle.state() : ''; }
  setState(text) { return this.handle ? this.handle.setState(text) : 'attnlab has not started yet'; }
}

addStyles();
sizeFrames();
if (!customElements.get('attn-lab')) customElements.define('attn-lab', AttnLabElement);
