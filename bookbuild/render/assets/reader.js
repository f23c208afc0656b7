/* Reader features of a computed chapter (placeholder: written in the next step). */
