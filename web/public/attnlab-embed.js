// <attn-lab>: one attnlab view in a blog post or any page.
//
//   <script type="module" src="https://…/attnlab-embed.js"></script>
//   <attn-lab view="heads" state="h.n=8" theme="auto"></attn-lab>
//
// Each element is its own instance (memory, ImGui context, canvas); the wasm is fetched and compiled
// once per page. An element starts when it is first scrolled near the viewport and draws nothing
// while it is out of view or the tab is hidden. element.state() / element.setState('…') read and
// set its state string; mount(element, options) does the same from code (see mount.js).
import { mount } from './mount.js';

export { mount };

// The component's styles, once per document, from beside this script (no inline styles: a strict
// Content-Security-Policy with style-src 'self' allows them).
function addStyles() {
  const href = new URL('attnlab.css', import.meta.url).href;
  if ([...document.querySelectorAll('link[rel=stylesheet]')].some((l) => l.href === href)) return;
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = href;
  document.head.append(link);
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

if (!customElements.get('attn-lab')) customElements.define('attn-lab', AttnLabElement);
