// What mount() shows when the module or the graphics stop: a module that died (a trap or an abort)
// leaves a frozen canvas, so the status line says so and offers a reload instead of looking alive; a
// lost WebGL context (the GPU reset, too many contexts on the page) is restored by the browser
// (preventDefault) and the app makes every GL object again (web/app/frame_loop.cpp), the status line
// saying "restoring graphics…" until the first frame drawn after it (afterFrame()).
export function watchLifeCycle(attnlab, { root, canvas, status }) {
  attnlab.onDied((why) => {
    status.replaceChildren(`attnlab stopped working (${why}). What you see is frozen. `);
    const reload = document.createElement('button');
    reload.className = 'attnlab-reload';
    reload.textContent = 'Reload';
    reload.addEventListener('click', () => location.reload());
    status.append(reload);
    status.classList.add('attnlab-error', 'attnlab-notice');
    status.hidden = false;
    for (const box of root.querySelectorAll('.attnlab-sentence')) box.setAttribute('disabled', '');
  });
  let restoringGraphics = false;
  canvas.addEventListener('webglcontextlost', (e) => {
    e.preventDefault();
    if (attnlab.dead()) return;
    restoringGraphics = true;
    status.textContent = 'restoring graphics…';
    status.classList.add('attnlab-notice');
    status.hidden = false;
  });
  return {
    afterFrame() {
      if (!restoringGraphics) return;
      restoringGraphics = false;
      status.hidden = true;
      status.classList.remove('attnlab-notice');
    },
  };
}
