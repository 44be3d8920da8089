// What a promise rejected with, when the test expects one error class: anything else (or no
// rejection) fails the test with the real cause.
export async function rejectionOf<E extends Error>(promise: Promise<unknown>, errorClass: abstract new (...args: never[]) => E): Promise<E> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof errorClass) {
      return error;
    }
    throw error;
  }
  throw new Error(`expected a ${errorClass.name}`);
}
