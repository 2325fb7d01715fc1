export function renderComment(comment) {
  return `<li class="comment"><b>${comment.author}</b>: ${comment.text}</li>`;
}
