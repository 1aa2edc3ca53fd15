"""Chunk Inspector in other people's pipelines (docs/pipelines.md): Ray Data (:mod:`.ray_data`), a LangChain
text splitter (:mod:`.langchain`) and a LlamaIndex node parser (:mod:`.llamaindex`); each needs its extra."""
