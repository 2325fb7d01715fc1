let nextId = 1;

export function createUser(name, email) {
  return { id: nextId++, name, email };
}
