// The language model's Web Worker (view 12): lm_session.mjs's model module, answering the page's
// messages one after another (see there) while the page's thread keeps drawing.
import { createLmSession, transferables } from './lm_session.mjs';

const session = createLmSession();
self.onmessage = ({ data }) => {
  session.handle(data).then((reply) => self.postMessage(reply, transferables(reply)));
};
