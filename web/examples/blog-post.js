// The host side of an iframe embed (README, "Embed it"): each attnlab iframe reports its height.
addEventListener('message', (e) => {
  if (!e.data || e.data.type !== 'attnlab:resize') return;
  for (const f of document.querySelectorAll('iframe.attnlab'))
    if (f.contentWindow === e.source) f.style.height = `${e.data.height}px`;
});
