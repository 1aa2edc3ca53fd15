"""The chunkers we compare against (:mod:`.chunkers`: LangChain, LlamaIndex, chonkie, semchunk,
semantic-text-splitter, run as their documentation recommends) and the structural checks of any chunk
list (:mod:`.metrics`). The peers are never dependencies: each is imported only when asked for."""
