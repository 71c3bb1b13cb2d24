"""The live host (`ring run`) and the end-to-end simulated game (`ring demo`)."""
