// Derived types: an abstract base (Shape) with subclasses named in [XmlInclude] on the base, one subclass
// (Circle) also used directly in a signature, one (Triangle) reachable only through [XmlInclude] on the
// service class, arrays of the base holding derived items, and a concrete base class (Vehicle/Truck).
using System;
using System.Web.Services;
using System.Xml.Serialization;

namespace Constructs
{
    [XmlInclude(typeof(Circle))]
    [XmlInclude(typeof(Square))]
    public abstract class Shape
    {
        public string Name;
    }

    public class Circle : Shape
    {
        public double Radius;
    }

    public class Square : Shape
    {
        public double Side;
    }

    public class Triangle : Shape
    {
        public double Base;
        public double Height;
    }

    public class Vehicle
    {
        public string Plate;
        public int Wheels;
    }

    public class Truck : Vehicle
    {
        public decimal PayloadTonnes;
    }

    [WebService(Namespace = "http://tempuri.org/constructs/derived/")]
    [WebServiceBinding(ConformsTo = WsiProfiles.BasicProfile1_1)]
    [XmlInclude(typeof(Triangle))]
    [XmlInclude(typeof(Truck))]
    public class DerivedTypes : WebService
    {
        [WebMethod(Description = "A shape of the given kind (circle, square, triangle), as the base type.")]
        public Shape GetShape(string kind)
        {
            switch (kind)
            {
                case "circle": return new Circle { Name = "c1", Radius = 1.5 };
                case "square": return new Square { Name = "s1", Side = 2 };
                case "triangle": return new Triangle { Name = "t1", Base = 3, Height = 4 };
                default: return null;
            }
        }

        [WebMethod(Description = "The area of any shape; says which class arrived.")]
        public string Area(Shape shape)
        {
            if (shape == null) return "null";
            double area;
            if (shape is Circle) area = Math.PI * ((Circle)shape).Radius * ((Circle)shape).Radius;
            else if (shape is Square) area = ((Square)shape).Side * ((Square)shape).Side;
            else if (shape is Triangle) area = ((Triangle)shape).Base * ((Triangle)shape).Height / 2;
            else area = -1;
            return shape.GetType().Name + " " + shape.Name + " " + area.ToString("R", System.Globalization.CultureInfo.InvariantCulture);
        }

        [WebMethod(Description = "One shape of each kind in an array of the base type.")]
        public Shape[] AllShapes()
        {
            return new Shape[] { GetShape("circle"), GetShape("square"), GetShape("triangle") };
        }

        [WebMethod(Description = "The classes of the shapes sent, in order.")]
        public string Classes(Shape[] shapes)
        {
            if (shapes == null) return "null";
            var names = new string[shapes.Length];
            for (int i = 0; i < shapes.Length; i++) names[i] = shapes[i] == null ? "null" : shapes[i].GetType().Name;
            return string.Join(",", names);
        }

        [WebMethod(Description = "A circle, declared as the subclass.")]
        public Circle UnitCircle()
        {
            return new Circle { Name = "unit", Radius = 1 };
        }

        [WebMethod(Description = "A concrete base class: a Vehicle, or a Truck when asked for one.")]
        public Vehicle GetVehicle(bool truck)
        {
            if (truck) return new Truck { Plate = "TR-1", Wheels = 6, PayloadTonnes = 12.5m };
            return new Vehicle { Plate = "CAR-1", Wheels = 4 };
        }
    }
}
