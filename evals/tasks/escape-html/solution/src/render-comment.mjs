const ENTITIES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (character) => ENTITIES[character]);
}

export function renderComment(comment) {
  return `<li class="comment"><b>${escapeHtml(comment.author)}</b>: ${escapeHtml(comment.text)}</li>`;
}
