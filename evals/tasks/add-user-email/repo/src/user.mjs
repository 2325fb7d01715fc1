let nextId = 1;

export function createUser(name) {
  return { id: nextId++, name };
}
