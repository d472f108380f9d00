"""The dashboard's screens: one module each, with a `render()` that app.py gives to `st.Page`."""
