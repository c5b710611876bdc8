#include "tests/testing/xml_query.h"

#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>

namespace nodeprobe::testing {
namespace {

// Evaluates `xpath` and hands the result to `read`.
template <typename T, typename F>
T Eval(xmlDocPtr doc, const std::string& xpath, T none, F read) {
  if (doc == nullptr) return none;
  xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
  xmlXPathObjectPtr o = xmlXPathEvalExpression(BAD_CAST xpath.c_str(), ctx);
  T v = o ? read(o) : none;
  if (o) xmlXPathFreeObject(o);
  xmlXPathFreeContext(ctx);
  return v;
}

}  // namespace

XmlQuery XmlQuery::Xml(const std::string& text) {
  return XmlQuery(xmlReadMemory(text.data(), static_cast<int>(text.size()), "doc.xml", nullptr,
                                XML_PARSE_NONET | XML_PARSE_NOBLANKS));
}

XmlQuery XmlQuery::Html(const std::string& text) {
  return XmlQuery(htmlReadMemory(text.data(), static_cast<int>(text.size()), "doc.html", "utf-8",
                                 HTML_PARSE_NONET | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING));
}

XmlQuery::~XmlQuery() {
  if (doc_) xmlFreeDoc(doc_);
}

std::string XmlQuery::String(const std::string& xpath) const {
  return Eval<std::string>(doc_, xpath, "", [](xmlXPathObjectPtr o) {
    xmlChar* s = xmlXPathCastToString(o);
    std::string v = reinterpret_cast<const char*>(s);
    xmlFree(s);
    return v;
  });
}

double XmlQuery::Number(const std::string& xpath) const {
  return Eval<double>(doc_, xpath, -1, [](xmlXPathObjectPtr o) { return xmlXPathCastToNumber(o); });
}

}  // namespace nodeprobe::testing
